/**
 * A port for a server a test starts and may restart on the same port. Drawn below 32768, where
 * Linux's ephemeral range (32768-60999) begins: an outgoing connection of any process can take a
 * port in that range between a server's exit and its restart (seen in CI as EADDRINUSE).
 */
export function randomListenPort(): number {
  return 20_000 + Math.floor(Math.random() * 12_000);
}
