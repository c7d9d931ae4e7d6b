/**
 * Finds decisions taken on a sentence (`error`, `message`, `reason`) in source text: the rule
 * tests/unit/no-message-comparisons.test.ts holds the gateway and the pages to.
 */
/** Comments out, `typeof x` in: what is left is code whose comparisons mean something. */
function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[\s;{}(),])\/\/[^\n]*/g, (_, before: string) => before)
    .replace(/\btypeof\s+[\w$.?[\]'"]+/g, 'typeofExpression')
}

const TEXT = String.raw`(?:error|message|reason)`
/**
 * `.error`, `?.error`, `['error']` on anything but a URL's query; or a bare `error` variable.
 * `boundary` ends the name where nothing after it in the rule does (`.errors` is another name).
 */
const sentence = (boundary: string) =>
  String.raw`(?:(?<!\bquery\??)(?:\?\.|\.)\s*${TEXT}${boundary}|(?<!\bquery\??)\[\s*['"]${TEXT}['"]\s*\]|(?<![\w$.'"])${TEXT}${boundary})`
const SENTENCE = sentence('')
const SENTENCE_AT_END = sentence(String.raw`\b`)
/** A string literal, or a constant that holds one (`NOT_ADMIN`); `boundary` starts the constant's name where the rule does not. */
const literal = (boundary: string) => String.raw`(?:'[^'\n]*'|"[^"\n]*"|\x60[^\x60\n]*\x60|${boundary}[A-Z][A-Z0-9_]{2,}\b)`
const LITERAL = literal('')
const LITERAL_AT_START = literal(String.raw`\b`)
const EQUALS = String.raw`(?:===|!==|==|!=)`

const RULES: ReadonlyArray<[string, RegExp]> = [
  ['compared with a string or a constant', new RegExp(String.raw`${SENTENCE}\s*(?:\)\s*)?${EQUALS}\s*${LITERAL}`)],
  ['compared with a string or a constant', new RegExp(String.raw`${LITERAL_AT_START}\s*${EQUALS}\s*[\w$.?()[\]]*?${SENTENCE_AT_END}`)],
  ['switched on', new RegExp(String.raw`switch\s*\(\s*[\w$.?()]*?${SENTENCE}\s*\)`)],
  ['searched', new RegExp(String.raw`${SENTENCE}\s*(?:\)\s*)?(?:\?\.|\.)\s*(?:includes|startsWith|endsWith|match|matchAll|search|indexOf|localeCompare)\s*\(`)],
  ['searched', new RegExp(String.raw`(?:\.test|\.includes|\.has)\(\s*[\w$.?()]*?${SENTENCE}\s*\)`)],
  ['used as a key', new RegExp(String.raw`\w\s*\[\s*[\w$.?()]*?${SENTENCE}\s*\]`)],
]

/** Each decision taken on a sentence in `text`, as `line: the line (why)`. */
export function messageDecisions(text: string): string[] {
  const lines = codeOf(text).split('\n')
  const found: string[] = []
  lines.forEach((line, i) => {
    for (const [why, rule] of RULES) {
      if (rule.test(line)) {
        found.push(`${i + 1}: ${line.trim()} (${why})`)
        break
      }
    }
  })
  return found
}
