/** A realistic JSON document of exactly `bytes` bytes (orders with nested items and text), for trigger bodies. */
export function jsonBody(bytes: number): string {
  const orders: unknown[] = [];
  let text = '';
  for (let i = 0; ; i++) {
    orders.push({ id: `o-${i}`, total: i * 1.25, paid: i % 2 === 0, customer: { name: `Customer ${i}`, email: `c${i}@example.com` }, items: [{ sku: `SKU-${i}`, qty: i % 5, note: 'é "quoted" ✓' }] });
    const next = JSON.stringify({ orders, pad: '' });
    if (Buffer.byteLength(next) > bytes - 64) break;
    text = next;
  }
  const base = JSON.parse(text) as { orders: unknown[]; pad: string };
  base.pad = 'x'.repeat(bytes - Buffer.byteLength(text));
  const body = JSON.stringify(base);
  if (Buffer.byteLength(body) !== bytes) throw new Error(`body is ${Buffer.byteLength(body)} bytes, wanted ${bytes}`);
  return body;
}

/** The largest body a trigger URL accepts (CONTRACT §6). */
export const TRIGGER_LIMIT_BYTES = 262_144;
