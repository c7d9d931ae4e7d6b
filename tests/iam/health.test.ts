import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam()
})
afterAll(() => iam?.stop())

describe('GET /health', () => {
  it('answers 200 with the plain text OK', async () => {
    const res = await fetch(`${iam.url}/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await res.text()).toBe('OK')
  })
})
