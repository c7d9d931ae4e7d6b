import { describe, expect, it } from 'vitest'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()

describe('GET /health', () => {
  it('answers 200 with the plain text OK', async () => {
    const res = await fetch(`${iam.url}/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await res.text()).toBe('OK')
  })
})
