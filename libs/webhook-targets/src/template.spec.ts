import { parseExactJson } from './exact-json';
import { RENDERED_BODY_LIMIT_BYTES, renderStepBody, renderTemplate, TemplateContext, TemplateError, TEMPLATE_LIMITS, validateTemplate } from './template';

const context = (body: unknown): TemplateContext => ({
  trigger: { body, receivedAt: '2025-11-22T02:00:00.000Z' },
  workflow: { id: 'wf_01jd2x7q9m3k8p4r6t1v5w0y2z', name: 'Paid orders' },
  run: { id: 'run_01jd2x7q9m3k8p4r6t1v5w0y2z' },
  account: { id: 42 },
});

const render = (template: unknown, body: unknown = {}) => JSON.parse(renderTemplate(template, context(body)));

describe(renderTemplate.name, () => {
  describe('a string that is exactly one placeholder', () => {
    it.each([
      ['number', 12.5],
      ['integer', 7],
      ['boolean', true],
      ['null', null],
      ['string', 'text'],
      ['object', { a: 1, b: [1, 2] }],
      ['array', [1, 'two', { three: 3 }]],
    ])('takes a %s with its JSON type', (_kind, value) => {
      expect(render({ v: '{{ trigger.body.v }}' }, { v: value })).toEqual({ v: value });
    });

    it('allows any spacing inside the braces', () => {
      expect(render(['{{trigger.body.n}}', '{{   trigger.body.n   }}'], { n: 3 })).toEqual([3, 3]);
    });

    it('fills every variable', () => {
      expect(
        render({
          receivedAt: '{{ trigger.receivedAt }}',
          workflowId: '{{ workflow.id }}',
          workflowName: '{{ workflow.name }}',
          runId: '{{ run.id }}',
          accountId: '{{ account.id }}',
          body: '{{ trigger.body }}',
        }, { x: 1 }),
      ).toEqual({
        receivedAt: '2025-11-22T02:00:00.000Z',
        workflowId: 'wf_01jd2x7q9m3k8p4r6t1v5w0y2z',
        workflowName: 'Paid orders',
        runId: 'run_01jd2x7q9m3k8p4r6t1v5w0y2z',
        accountId: 42,
        body: { x: 1 },
      });
    });

    it('reads nested paths with dots, [index] and ["key"]', () => {
      const body = { order: { items: [{ sku: 'A' }, { sku: 'B', 'unit price': 9.5 }] }, list: [[0, [1, 2]]] };
      expect(
        render(
          {
            dot: '{{ trigger.body.order.items.1.sku }}',
            bracket: '{{ trigger.body.order.items[0].sku }}',
            quoted: '{{ trigger.body.order.items[1]["unit price"] }}',
            deep: '{{ trigger.body.list[0][1][1] }}',
          },
          body,
        ),
      ).toEqual({ dot: 'B', bracket: 'A', quoted: 9.5, deep: 2 });
    });

    it('is the whole value when the template is a bare string', () => {
      expect(render('{{ trigger.body }}', [1, 2])).toEqual([1, 2]);
      expect(render('{{ account.id }}')).toBe(42);
    });
  });

  describe('integers past 2^53 in a body read with parseExactJson', () => {
    const body = parseExactJson('{"order": {"id": 820982911946154508, "lines": [{"sku": 12345678901234567890}]}}');

    it('keep their digits as a value, inside an object, and inside text', () => {
      const text = renderTemplate({ id: '{{ trigger.body.order.id }}', order: '{{ trigger.body.order }}', note: 'order {{ trigger.body.order.id }}: {{ trigger.body.order.lines }}' }, context(body));
      expect(text).toBe(
        '{"id":820982911946154508,"order":{"id":820982911946154508,"lines":[{"sku":12345678901234567890}]},' +
          '"note":"order 820982911946154508: [{\\"sku\\":12345678901234567890}]"}',
      );
    });
  });

  describe('missing paths', () => {
    it.each([
      ['an absent key', '{{ trigger.body.nope }}', { a: 1 }],
      ['a key under a scalar', '{{ trigger.body.a.b }}', { a: 1 }],
      ['an index out of range', '{{ trigger.body.list[5] }}', { list: [1] }],
      ['a name on an array', '{{ trigger.body.list.first }}', { list: [1] }],
      ['a key under null', '{{ trigger.body.a.b }}', { a: null }],
      ['a path into a scalar body', '{{ trigger.body.a }}', 'text'],
      ['an inherited property', '{{ trigger.body.constructor }}', {}],
      ['__proto__', '{{ trigger.body.__proto__ }}', {}],
      ['length of an array', '{{ trigger.body.list.length }}', { list: [1, 2] }],
    ])('makes %s null', (_case, placeholder, body) => {
      expect(render({ v: placeholder }, body)).toEqual({ v: null });
    });

    it('makes missing and null values empty text inside other text', () => {
      expect(render({ v: 'a{{ trigger.body.nope }}b{{ trigger.body.n }}c' }, { n: null })).toEqual({ v: 'abc' });
    });
  });

  describe('interpolation inside text', () => {
    it('writes values as text: strings as is, numbers and booleans in JSON spelling, objects as JSON', () => {
      const body = { s: 'x', n: 1.5, b: false, o: { k: [1, 'v'] }, a: [1, 2] };
      expect(render({ v: 's={{trigger.body.s}} n={{trigger.body.n}} b={{trigger.body.b}} o={{trigger.body.o}} a={{trigger.body.a}}' }, body)).toEqual({
        v: 's=x n=1.5 b=false o={"k":[1,"v"]} a=[1,2]',
      });
    });

    it('treats surrounding whitespace as text, so the result is a string', () => {
      expect(render({ v: ' {{ trigger.body.n }}' }, { n: 5 })).toEqual({ v: ' 5' });
      expect(render({ v: '{{ trigger.body.n }}{{ trigger.body.n }}' }, { n: 5 })).toEqual({ v: '55' });
    });
  });

  describe('escaping', () => {
    const nasty = 'He said "hi" \\ {{ run.id }} }} \n\u0000 </script> \u2028';

    it('keeps quotes, backslashes and control characters of values valid JSON', () => {
      const text = renderTemplate({ exact: '{{ trigger.body.s }}', inner: 'said: {{ trigger.body.s }}' }, context({ s: nasty }));
      expect(JSON.parse(text)).toEqual({ exact: nasty, inner: `said: ${nasty}` });
    });

    it('never renders a substituted value again', () => {
      const body = { s: '{{ account.id }}', o: { t: '{{ workflow.name }}' } };
      expect(render({ a: '{{ trigger.body.s }}', b: 'x {{ trigger.body.s }}', c: '{{ trigger.body.o }}' }, body)).toEqual({
        a: '{{ account.id }}',
        b: 'x {{ account.id }}',
        c: { t: '{{ workflow.name }}' },
      });
    });

    it('keeps object keys literal, __proto__ included', () => {
      const template = JSON.parse('{"{{ run.id }}": 1, "__proto__": {"x": "{{ account.id }}"}}');
      const text = renderTemplate(template, context({}));
      expect(text).toBe('{"{{ run.id }}":1,"__proto__":{"x":42}}');
    });

    it('passes literal values through untouched', () => {
      expect(render({ n: 1, b: true, z: null, s: 'plain } { }} text', a: [] })).toEqual({ n: 1, b: true, z: null, s: 'plain } { }} text', a: [] });
    });
  });

  it('throws TemplateError on a template validateTemplate refuses', () => {
    expect(() => renderTemplate({ v: '{{ nope }}' }, context({}))).toThrow(TemplateError);
  });
});

describe(validateTemplate.name, () => {
  it.each([
    [{ a: 'x {{ trigger.body.a }} y' }],
    ['{{ trigger.body }}'],
    [[1, null, true, { deep: ['{{ run.id }}'] }]],
    [{ a: '}} alone is text' }],
    [null],
  ])('accepts %j', (template) => {
    expect(validateTemplate(template)).toBeNull();
  });

  it.each([
    [{ a: 'x {{ trigger.body.a ' }, 'body.a: "{{" at character 2 is never closed'],
    [{ a: '{{ {{ run.id }}' }, 'body.a: "{{" at character 0 is never closed'],
    [{ a: ['ok', '{{ }}'] }, 'body.a[1]: empty placeholder'],
    [{ a: '{{ foo.bar }}' }, 'body.a: unknown variable "foo.bar"'],
    [{ a: '{{ trigger }}' }, 'unknown variable "trigger"'],
    [{ a: '{{ trigger.headers.x }}' }, 'unknown variable'],
    [{ a: '{{ run.id.x }}' }, 'unknown variable "run.id.x"'],
    [{ a: '{{ account }}' }, 'unknown variable'],
    [{ a: '{{ trigger.body..a }}' }, 'invalid path'],
    [{ a: '{{ trigger.body[01] }}' }, 'invalid path'],
    [{ a: '{{ trigger.body[x] }}' }, 'invalid path'],
    [{ a: '{{ trigger.body["x] }}' }, 'invalid path'],
    [{ a: '{{ trigger.body.a b }}' }, 'invalid path'],
  ])('refuses %j (%s)', (template, message) => {
    expect(validateTemplate(template)).toContain(message);
  });

  it('names the place with the given prefix', () => {
    expect(validateTemplate({ a: '{{ x.y }}' }, 'steps[2].body')).toMatch(/^steps\[2\]\.body\.a: /);
  });

  it('bounds size, depth and placeholder count', () => {
    expect(validateTemplate({ s: 'x'.repeat(TEMPLATE_LIMITS.maxJsonLength) })).toContain('at most');
    const nested = (levels: number, inner: unknown) => {
      let value = inner;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    // every array or object is a level, whether or not it holds a value
    expect(validateTemplate(nested(TEMPLATE_LIMITS.maxDepth, 1))).toBeNull();
    expect(validateTemplate(nested(TEMPLATE_LIMITS.maxDepth - 1, []))).toBeNull();
    expect(validateTemplate(nested(TEMPLATE_LIMITS.maxDepth + 1, 1))).toContain('nested more than');
    expect(validateTemplate(nested(TEMPLATE_LIMITS.maxDepth, []))).toContain('nested more than');
    expect(validateTemplate(nested(TEMPLATE_LIMITS.maxDepth, {}))).toContain('nested more than');
    const many = Array.from({ length: TEMPLATE_LIMITS.maxPlaceholders + 1 }, () => '{{ run.id }}');
    expect(validateTemplate(many)).toContain('placeholders');
  });

  it('refuses values that are not JSON', () => {
    expect(validateTemplate(undefined)).toContain('must be a JSON value');
    expect(validateTemplate({ f: () => 1 } as unknown)).toContain('must be a JSON value');
  });

  it('stops rendering as soon as the text passes the limit, before building the rest', () => {
    const big = 'x'.repeat(10_000);
    const template = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, '{{ trigger.body.big }}']));
    let resolved = 0;
    const counting = new Proxy({ big }, { get: (target, key) => (key === 'big' && resolved++, Reflect.get(target, key)) });
    expect(() => renderTemplate(template, context(counting), 25_000)).toThrow(/longer than 25000 characters/);
    expect(resolved).toBeLessThanOrEqual(3);
    expect(renderTemplate({ a: '{{ trigger.body.big }}' }, context({ big }), 10_010)).toHaveLength(10_008);
  });
});

describe(renderStepBody.name, () => {
  it('refuses a body past 1 MB of UTF-8, also one of fewer characters', () => {
    const template = { a: '{{ trigger.body.text }}' };
    // 2 bytes per character: under the limit in characters, over it in bytes
    const wide = 'é'.repeat(RENDERED_BODY_LIMIT_BYTES / 2);
    expect(() => renderStepBody(template, context({ text: wide }))).toThrow(new TemplateError(`the rendered body is larger than ${RENDERED_BODY_LIMIT_BYTES} bytes`));
    const astral = '😀'.repeat(RENDERED_BODY_LIMIT_BYTES / 4);
    expect(() => renderStepBody(template, context({ text: astral }))).toThrow(TemplateError);
    const fits = 'é'.repeat(RENDERED_BODY_LIMIT_BYTES / 2 - 10);
    expect(Buffer.byteLength(renderStepBody(template, context({ text: fits })))).toBe(RENDERED_BODY_LIMIT_BYTES - 20 + '{"a":""}'.length);
    expect(() => renderStepBody(template, context({ text: 'x'.repeat(RENDERED_BODY_LIMIT_BYTES) }))).toThrow(/longer than/);
  });
});
