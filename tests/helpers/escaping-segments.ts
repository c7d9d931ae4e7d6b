/**
 * Every spelling of "step out of this segment" that some URL parser on the way resolves or decodes
 * into a separator: plain and percent-encoded dot segments (mixed case, half-encoded, double
 * encoded), encoded slashes and backslashes, a raw backslash, NUL, and an empty segment.
 */
export const ESCAPING_SEGMENTS = ['..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%2e', '%252e%252e', '..%2f', '%2e%2e%2f', '..%5c', '%5c..', '..\\', '%00', ''] as const
