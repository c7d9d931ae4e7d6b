/**
 * composables/email-shape.ts decides as the pattern it replaced, `^[^\s@]+@[^\s@]+\.[^\s@]+$` (and
 * its domain group), on every kind of address a person may type; the pattern is kept here as the
 * twin it is held to.
 */
import { describe, expect, it } from 'vitest'
import { emailDomain, hasEmailShape } from '../../composables/email-shape'

// eslint-disable-next-line regexp/no-super-linear-backtracking -- the pattern the scan replaced, kept as its twin
const TWIN = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/

const SAMPLES = [
  'a@b.c', 'ada@example.com', 'ada.lovelace+tag@mail.example.co.uk', 'a@.b', 'a@b.', 'a@b..c', 'a@..', 'a@...', 'a@b.c.', 'a@.b.c',
  '@b.c', 'a@b', 'a@@b.c', 'a@b@c.d', 'a b@c.d', 'a@b .c', ' a@b.c', 'a@b.c ', 'a@b.c\n', '\ta@b.c', 'a@b\u00a0.c', '',
  '@', 'a@', 'a.b@c', 'x@y.z.', 'ü@ß.de', 'a@b.c@', 'a@-.-', 'a@b.\u2028c',
]

describe('the shape of an address, before a form is sent', () => {
  it('is the pattern\'s decision, and its domain the pattern\'s group, for every kind of address', () => {
    for (const sample of SAMPLES) {
      expect({ sample, shape: hasEmailShape(sample), domain: emailDomain(sample) }).toEqual({ sample, shape: TWIN.test(sample), domain: TWIN.exec(sample)?.[1] ?? '' })
    }
  })

  it('decides a domain of many dots, which the pattern backtracks over, like any other', () => {
    const dots = `a@${'.'.repeat(20_000)}`
    expect([hasEmailShape(dots), emailDomain(dots)]).toEqual([true, '.'.repeat(20_000)])
    expect(hasEmailShape(`a@${'.'.repeat(20_000)} `)).toBe(false)
  })
})
