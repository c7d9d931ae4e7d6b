/**
 * Whether a typed address has the shape of one, before the form is sent: no whitespace, one `@`
 * with something before it, and a domain with a dot that is neither its first nor its last
 * character. The IAM decides what it accepts (its own checks and answers); this only catches a
 * slip in the browser, in words, without a round trip.
 *
 * Plain string scans rather than a pattern: `^[^\s@]+@[^\s@]+\.[^\s@]+$`, the pattern this stands
 * for, backtracks quadratically over a domain of dots, because its two runs can trade them.
 */
export function hasEmailShape(value: string): boolean {
  return emailDomain(value) !== ''
}

/** The domain of an address of that shape, '' for anything else. */
export function emailDomain(value: string): string {
  if (/\s/.test(value)) return ''
  const at = value.indexOf('@')
  if (at < 1 || value.includes('@', at + 1)) return ''
  const domain = value.slice(at + 1)
  // the first dot after the domain's first character, which must not be its last
  const dot = domain.indexOf('.', 1)
  return dot !== -1 && dot < domain.length - 1 ? domain : ''
}
