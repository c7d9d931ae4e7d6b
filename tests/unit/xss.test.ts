import { describe, expect, it } from 'vitest'
import { containsXss, stringContainsXss } from '../../iam/lib/xss'

describe('containsXss: markup and script URLs are detected', () => {
  it.each([
    '<script>alert(1)</script>',
    '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
    '<img src=x onerror=alert(1)>',
    '<img src=x onerror=alert(1)',
    '<svg/onload=alert(1)>',
    '<iframe src="https://evil.example">',
    '</textarea><script>alert(1)</script>',
    '<a href="javascript:alert(1)">click</a>',
    '<x-widget>',
    '<!-- comment -->',
    '<![CDATA[x]]>',
    '<b>bold</b>',
    '<body onload=alert(1)>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  ])('flags the element %j', (input) => {
    expect(stringContainsXss(input)).toBe(true)
  })

  it.each([
    '" onmouseover="alert(1)',
    "' onfocus='alert(1)' autofocus '",
    'x" onerror=alert(1) y="',
  ])('flags the event-handler attribute breakout %j', (input) => {
    expect(stringContainsXss(input)).toBe(true)
  })

  it.each([
    'javascript:alert(1)',
    '  JavaScript:alert(document.cookie)',
    'java\tscript:alert(1)',
    'java&#x09;script:alert(1)',
    '&#106;avascript:alert(1)',
    'javascript&colon;alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'url(javascript:alert(1))',
    'https://ok.example/?next=javascript:alert(1)',
  ])('flags the script URL %j', (input) => {
    expect(stringContainsXss(input)).toBe(true)
  })

  it('flags percent-encoded and entity-encoded markup', () => {
    expect(stringContainsXss('%3Cscript%3Ealert(1)%3C%2Fscript%3E')).toBe(true)
    expect(stringContainsXss('&lt;img src=x onerror=alert(1)&gt;')).toBe(true)
  })
})

describe('containsXss: plain text passes', () => {
  it.each([
    '50% off',
    'a < b',
    'x<y and y>z',
    '3 > 2 and 1 < 2',
    'I <3 this',
    "O'Brien & Sons",
    'Jean-Luc Picard',
    'price: 10 % discount',
    'the button is on the left',
    'user@example.com',
    'https://example.com/profile?id=42&x=y',
    'learning javascript: it is fun',
    'Zoë 日本語 😀',
    '',
  ])('accepts %j', (input) => {
    expect(stringContainsXss(input)).toBe(false)
  })
})

describe('containsXss walks every string of a value', () => {
  it('finds markup nested in objects and arrays', () => {
    expect(containsXss({ a: 1, b: [{ c: 'fine' }, { d: ['<script>x</script>'] }] })).toBe(true)
  })
  it('checks object keys too', () => {
    expect(containsXss({ '<img src=x onerror=alert(1)>': 1 })).toBe(true)
  })
  it('accepts clean structures and non-string leaves', () => {
    expect(containsXss({ name: 'Ann', age: 3, tags: ['a < b', '50% off'], ok: true, none: null })).toBe(false)
    expect(containsXss(42)).toBe(false)
    expect(containsXss(undefined)).toBe(false)
  })
  it('survives deep nesting without recursion limits', () => {
    let deep: unknown = 'x<script>'
    for (let i = 0; i < 10_000; i++) deep = [deep]
    expect(containsXss(deep)).toBe(true)
  })
})

describe('stringContainsXss: the script and data URL patterns decide in one pass', () => {
  // the two patterns as they were, before each quote got the whitespace after it as its own:
  // `[=(]\s*["'`]?\s*` lets the two runs trade spaces (quadratic in a run of them)
  // eslint-disable-next-line regexp/no-super-linear-backtracking -- the former pattern, kept as the twin the new one is held to
  const FORMER_SCRIPT_URL = /(?:^|[=(]\s*["'`]?)\s*(?:java|vb|live)script\s*:/i
  // eslint-disable-next-line regexp/no-super-linear-backtracking -- the former pattern, kept as the twin the new one is held to
  const FORMER_DATA_URL = /(?:^|[=(]\s*["'`]?)\s*data:\s*(?:text\/html|image\/svg\+xml|application\/xhtml)/i
  /** flagged by the former patterns (a space before each colon: the inline rule does not apply) */
  const FLAGGED = ['javascript :x', '  javascript :', 'a="javascript :x', "a= ' javascript :x", 'a=(  vbscript :', 'url( " livescript :', '= `  javascript  :', 'data:text/html,x', '  data:text/html', 'a= " data: text/html', "href='data:image/svg+xml"]
  /** passed by them: a quote that opens the value, no `=` or `(` before it, another word or type */
  const PASSED = ['"javascript :x', 'x=javascript', 'a="java script :', 'a="data:image/png', 'plain text = fine', '" data:text/html']

  it('flags what the former patterns flagged, and passes what they passed', () => {
    for (const sample of FLAGGED) expect({ sample, former: FORMER_SCRIPT_URL.test(sample) || FORMER_DATA_URL.test(sample), now: stringContainsXss(sample) }).toEqual({ sample, former: true, now: true })
    for (const sample of PASSED) expect({ sample, former: FORMER_SCRIPT_URL.test(sample) || FORMER_DATA_URL.test(sample), now: stringContainsXss(sample) }).toEqual({ sample, former: false, now: false })
  })

  it('decides a long run of spaces between = and a value like a short one', () => {
    const spaces = ' '.repeat(50_000)
    expect(stringContainsXss(`a=${spaces}"${spaces}javascript:x`)).toBe(true)
    expect(stringContainsXss(`a=${spaces}"${spaces}ok`)).toBe(false)
  })
})
