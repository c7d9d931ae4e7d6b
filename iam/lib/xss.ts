/**
 * XSS attempt detection for free-text input: input detected as an XSS attempt yields 403 and the
 * device is banned (docs/errors.md, `xss_rejected`).
 *
 * A detection bans a device, so false positives hurt real users: only markup that a browser would
 * treat as markup counts. Plain text with angle brackets or percent signs (`50% off`, `a < b`,
 * `x<y and y>z`) passes. Escaping on output is the real defence; this catches the attempt.
 *
 * Detected:
 * - HTML/SVG/MathML elements by name (`<script`, `<img ...>`, `</div>`), custom elements
 *   (`<x-foo>`), comments, CDATA, doctype and processing instructions;
 * - event-handler attributes (`" onerror=`), as used to break out of an attribute value;
 * - script URLs (`javascript:`, `vbscript:`, `livescript:`, `data:text/html`), also when spelled
 *   with HTML entities or control characters that browsers drop inside a URL scheme;
 * - the same markup percent-encoded (`%3Cscript%3E`).
 */

// Element names of HTML, SVG and MathML that matter for injection (and the common ones).
const TAGS = new Set(
  (
    'a abbr address animate animatemotion animatetransform applet area article aside audio b base basefont bdi bdo bgsound ' +
    'big blink blockquote body br button canvas caption center cite code col colgroup command content data datalist dd del ' +
    'details dfn dialog dir div dl dt em embed fieldset figcaption figure font footer foreignobject form frame frameset ' +
    'h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe image img input ins isindex kbd keygen label layer legend li ' +
    'link listing main map mark marquee math menu menuitem meta meter multicol nav nextid nobr noembed noframes noscript ' +
    'object ol optgroup option output p param picture plaintext pre progress q rp rt ruby s samp script section select ' +
    'set shadow slot small source spacer span strike strong style sub summary sup svg table tbody td template textarea ' +
    'tfoot th thead time title tr track tt u ul use var video wbr xmp'
  ).split(' '),
)

// `<name` or `</name` followed by what ends a tag name (whitespace, `/`, `>`): `a < b` has no name.
const TAG = /<\/?([a-z][a-z0-9]*(?:-[a-z0-9-]*)?)(?=[\s/>])/gi
const SPECIAL_MARKUP = /<!--|<!\[cdata\[|<!doctype|<\?[a-z]/i
// An event-handler attribute: `on<name>=` where an attribute may start (after a tag name,
// whitespace, a quote or `/`): `" onmouseover=` breaks out of a quoted attribute value.
const EVENT_HANDLER = /(?:^|[\s"'`/;])on[a-z]{3,}\s*=/i
// A script URL as a whole value, or as the value of an attribute or CSS url( ... ).
const SCRIPT_URL_AT = /(?:^\s*|[=(]\s*(?:["'`]\s*)?)(?:java|vb|live)script\s*:/i
// ... or anywhere when the code follows directly: `javascript:alert(1)` (no space after the colon).
const SCRIPT_URL_INLINE = /(?:java|vb|live)script:[^\s]/i
const DATA_HTML_URL = /(?:^\s*|[=(]\s*(?:["'`]\s*)?)data:\s*(?:text\/html|image\/svg\+xml|application\/xhtml)/i

const NAMED_ENTITIES: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  lpar: '(',
  rpar: ')',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  amp: '&',
}

/** Decodes the HTML character references a browser decodes inside an attribute value. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (match, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? match
  })
}

function hasMarkup(text: string): boolean {
  if (SPECIAL_MARKUP.test(text)) return true
  for (const match of text.matchAll(TAG)) {
    const name = match[1].toLowerCase()
    if (TAGS.has(name) || name.includes('-')) return true
  }
  return false
}

/** True when one string looks like an XSS attempt. */
export function stringContainsXss(text: string): boolean {
  if (text.length === 0) return false
  if (hasMarkup(text) || EVENT_HANDLER.test(text)) return true
  // Browsers drop tabs, newlines and other controls inside a URL scheme: `java\tscript:`.
  // eslint-disable-next-line no-control-regex -- the control characters are what is removed
  const url = decodeEntities(text).replace(/[\u0000-\u001f\u007f]/g, '')
  if (SCRIPT_URL_AT.test(url) || SCRIPT_URL_INLINE.test(url) || DATA_HTML_URL.test(url)) return true
  if (url !== text && (hasMarkup(url) || EVENT_HANDLER.test(url))) return true
  if (/%3c|%22|%27/i.test(text)) {
    let decoded: string
    try {
      decoded = decodeURIComponent(text)
    } catch {
      return false // not percent-encoding (`50% off`)
    }
    return decoded !== text && stringContainsXss(decoded)
  }
  return false
}

/** True when any string in `value` (object keys included, any depth) looks like an XSS attempt. */
export function containsXss(value: unknown): boolean {
  const stack: unknown[] = [value]
  const seen = new WeakSet<object>()
  while (stack.length) {
    const item = stack.pop()
    if (typeof item === 'string') {
      if (stringContainsXss(item)) return true
    } else if (item && typeof item === 'object') {
      if (seen.has(item)) continue
      seen.add(item)
      if (Array.isArray(item)) stack.push(...item)
      else
        for (const [key, child] of Object.entries(item)) {
          if (stringContainsXss(key)) return true
          stack.push(child)
        }
    }
  }
  return false
}
