/**
 * What an imported password hash may cost to verify. Its parameters come from a file, not from us:
 * without caps one crafted line (bcrypt cost 31, a PBKDF2 key of megabytes, Argon2 with p=255)
 * turns every wrong guess at that account into seconds or minutes of CPU. The caps are checked at
 * import, where a line past them is refused naming the parameter, and again before every
 * verification, where a hash stored before them is answered as a wrong password, never computed.
 *
 * Each cap sits above what the systems docs/import.md names ship as their defaults, so real
 * exports go in, and bounds one verification at about a second of one core (the figures per
 * algorithm: docs/performance.md, "Checks that cost CPU on purpose"). Verification runs on the worker
 * pool of hash-pool.ts with a deadline; the caps keep that deadline from being the only
 * bound.
 */

export const IMPORTED_HASH_CAPS = {
  /**
   * bcrypt's cost is log2 of its rounds: each step doubles the work. 13 is one step above the
   * 12 that Laravel and Rails' has_secure_password default to; bcryptjs computes it in JavaScript,
   * a few times slower than native code, so 16 (eight times 13) was seconds of CPU a guess.
   */
  bcryptCost: 13,
  /**
   * PBKDF2's i. OWASP's Password Storage Cheat Sheet asks 600,000 for PBKDF2-HMAC-SHA256 and
   * 210,000 for SHA-512; Django 5.2 ships 1,000,000 and raises it with each release, the highest
   * default of the systems we import. 2,000,000 leaves room for those raises.
   */
  pbkdf2Iterations: 2_000_000,
  /**
   * The derived key (the hash part) of PBKDF2, scrypt and Argon2, in bytes. PBKDF2 repeats all i
   * iterations for every block of its output (RFC 8018, section 5.2): a 1024-byte key of
   * PBKDF2-SHA256 is 32 times the work its iteration count says. 64 bytes is SHA-512's one block,
   * what Keycloak stores and RFC 7914's scrypt test vectors carry; most systems store 32. SHA-1's
   * blocks are 20 bytes, so 64 is four of them: at the iteration cap that stays under SHA-512's
   * one block, the worst case the cap already took (docs/performance.md).
   */
  hashBytes: 64,
  /**
   * Argon2's m in KiB: memory taken for the length of one verification, per verification in
   * flight. 256 MiB is libsodium's MODERATE profile (its SENSITIVE, 1 GiB, is refused).
   */
  argon2MemoryKib: 262_144,
  /**
   * Argon2's m × t in KiB: its time is about the memory it fills times its passes. 1 GiB·pass
   * takes libsodium's MODERATE (256 MiB, t = 3) and RFC 9106's second recommended option
   * (64 MiB, t = 3), and refuses the 256 MiB × 20 passes the old per-parameter caps let in.
   */
  argon2MemoryPasses: 1_048_576,
  /**
   * Argon2's p, its lanes. RFC 9106 recommends 4; argon2-cffi used 8, PHP uses 1. The verifier
   * here runs the lanes one after another on one thread and each adds overhead of its own (16
   * lanes about double one lane's time, docs/performance.md).
   */
  argon2Parallelism: 16,
  /** scrypt's ln (N = 2^ln), r and p one by one: the work cap below is what bounds the cost */
  scryptLogN: 20,
  scryptR: 32,
  scryptP: 16,
  /**
   * scrypt's 128·N·r·p in bytes: 128·N·r is the memory it takes and p runs it that many times
   * (RFC 7914, section 6). 256 MiB is twice OWASP's N = 2^17, r = 8, p = 1 and 16 times
   * Percival's N = 2^14, r = 8 for interactive logins.
   */
  scryptWorkBytes: 256 * 1024 * 1024,
} as const

/** One parameter past its cap. */
export interface OverCap {
  parameter: string
  value: number
  cap: number
  /** how value and cap are counted, when not a plain number (`bytes`, `KiB`) */
  unit?: string
}

/** The line's reason and the log's message: `bcrypt cost is 16, over its cap of 13`. */
export function overCapReason(kind: string, over: OverCap): string {
  const unit = over.unit ? ` ${over.unit}` : ''
  return `${kind} ${over.parameter} is ${over.value}${unit}, over its cap of ${over.cap}${unit}`
}

const C = IMPORTED_HASH_CAPS

/** The first parameter past its cap, in the order given, or null. */
function firstOver(checks: Array<OverCap | false>): OverCap | null {
  return checks.find((check): check is OverCap => check !== false && check.value > check.cap) ?? null
}

const hashLength = (bytes: number): OverCap => ({ parameter: 'hash length', value: bytes, cap: C.hashBytes, unit: 'bytes' })

export const bcryptOverCap = (cost: number): OverCap | null => firstOver([{ parameter: 'cost', value: cost, cap: C.bcryptCost }])

export const pbkdf2OverCap = (iterations: number, hashBytes: number): OverCap | null =>
  firstOver([{ parameter: 'i', value: iterations, cap: C.pbkdf2Iterations }, hashLength(hashBytes)])

export const argon2OverCap = (m: number, t: number, p: number, hashBytes: number): OverCap | null =>
  firstOver([
    { parameter: 'p', value: p, cap: C.argon2Parallelism },
    { parameter: 'm', value: m, cap: C.argon2MemoryKib, unit: 'KiB' },
    { parameter: 'm×t', value: m * t, cap: C.argon2MemoryPasses, unit: 'KiB' },
    hashLength(hashBytes),
  ])

export const scryptOverCap = (ln: number, r: number, p: number, hashBytes: number): OverCap | null =>
  firstOver([
    { parameter: 'ln', value: ln, cap: C.scryptLogN },
    { parameter: 'r', value: r, cap: C.scryptR },
    { parameter: 'p', value: p, cap: C.scryptP },
    hashLength(hashBytes),
    // only once ln is known to be small enough for 2 ** ln to be exact
    { parameter: '128·N·r·p', value: 128 * 2 ** Math.min(ln, C.scryptLogN) * r * p, cap: C.scryptWorkBytes, unit: 'bytes' },
  ])
