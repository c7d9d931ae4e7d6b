import { describe, expect, it } from 'vitest'
import { isCanonicalPath, isForwardableTarget, isUnderMount } from '../../iam/contract/request-path'
import { ESCAPING_SEGMENTS } from '../helpers/escaping-segments'

describe('isCanonicalPath', () => {
  it.each(['/', '/oidc', '/oidc/', '/oidc/auth', '/oidc/.well-known/openid-configuration', '/custom/mfa/new%20device', '/a/100%25', '/orgs/org_1/members', "/a/b:c@d!$&'()*+,;=~"])(
    'accepts %s, which every URL parser leaves as it is',
    (path) => {
      expect(isCanonicalPath(path)).toBe(true)
      // the claim behind the rule: WHATWG URL keeps a canonical path byte for byte
      expect(new URL(path, 'http://iam.test').pathname).toBe(path)
    },
  )

  it.each(ESCAPING_SEGMENTS)('refuses a path with the segment %j between two others', (segment) => {
    expect(isCanonicalPath(`/oidc/${segment}/openapi.json`)).toBe(false)
  })

  it.each(['oidc/x', '//evil.test/x', '/a b', '/a\tb', '/a\nb', '/a?b', '/a#b', '/a"b', '/a<b', '/é', '/a%zz', '/a%4', '/a%2Fb', '/a%5Cb', '/a%2500'])(
    'refuses %j: relative, a network-path reference, or a character URL parsing would change',
    (path) => {
      expect(isCanonicalPath(path)).toBe(false)
    },
  )

  it('refuses every path that WHATWG URL would resolve elsewhere (a sweep of two-segment spellings)', () => {
    const pieces = ['.', '%2e', '%2E', '%252e', 'a', '%2f', '%5c', '\\']
    for (const a of pieces) {
      for (const b of ['', ...pieces]) {
        const path = `/m/${a}${b}/x`
        if (new URL(path, 'http://iam.test').pathname !== path) expect(isCanonicalPath(path), path).toBe(false)
      }
    }
  })
})

describe('isForwardableTarget', () => {
  it('keeps a forwarder to its mount: the mount itself and paths under it only', () => {
    expect(isUnderMount('/oidc', '/oidc')).toBe(true)
    expect(isUnderMount('/oidc/token', '/oidc')).toBe(true)
    expect(isUnderMount('/oidcx/token', '/oidc')).toBe(false)
    expect(isForwardableTarget('/oidc/auth?client_id=a&redirect_uri=https%3A%2F%2Fapp.test%2Fcb', '/oidc')).toBe(true)
    expect(isForwardableTarget('/oidc/%2e%2e/auth/OAuth/demo', '/oidc')).toBe(false)
    expect(isForwardableTarget('/openapi.json', '/oidc')).toBe(false)
    expect(isForwardableTarget('/oidc/auth?x=1#frag', '/oidc')).toBe(false)
    expect(isForwardableTarget('/oidc/auth?x=\n1', '/oidc')).toBe(false)
  })
})
