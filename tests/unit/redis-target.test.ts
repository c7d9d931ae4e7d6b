import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../iam/lib/config'
import { parseRedisTarget } from '../../iam/lib/storage/redis-target'

const refusal = (url: string): string => {
  try {
    parseConfig({ storage: { driver: 'redis', url } })
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error(`accepted ${url}`)
}

describe('storage.url forms', () => {
  it('passes a plain redis: or rediss: URL to the client as it is', () => {
    expect(parseRedisTarget('redis://:pw@localhost:6379/2')).toEqual({ kind: 'single', url: 'redis://:pw@localhost:6379/2' })
    expect(parseRedisTarget('rediss://cache.example:6380')).toEqual({ kind: 'single', url: 'rediss://cache.example:6380' })
  })

  it('reads the sentinels, the primary set name, the database and the credentials of redis+sentinel:', () => {
    expect(parseRedisTarget('redis+sentinel://app:p%40ss@s1.example:26379,[::1]:26380,s3/iam-primary?db=3')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1.example', port: 26379 },
        { host: '::1', port: 26380 },
        { host: 's3', port: 26379 },
      ],
      name: 'iam-primary',
      db: 3,
      username: 'app',
      password: 'p@ss',
    })
    expect(parseRedisTarget('redis+sentinel://s1/mymaster')).toEqual({ kind: 'sentinel', sentinels: [{ host: 's1', port: 26379 }], name: 'mymaster', db: 0 })
  })

  it('reads the seed nodes and the password of redis+cluster:', () => {
    expect(parseRedisTarget('redis+cluster://:secret@10.0.0.1:7000,10.0.0.2')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
      ],
      password: 'secret',
    })
  })

  it('stops the start on a malformed URL, naming the key and the expected form', () => {
    expect(refusal('memcached://x')).toBe('Invalid IAM configuration:\nstorage.url: the scheme must be redis:, rediss:, redis+sentinel: or redis+cluster:')
    expect(refusal('redis+sentinel://s1:26379')).toMatch(/^Invalid IAM configuration:\nstorage\.url: the path must name the primary set \(expected redis\+sentinel:\/\//)
    expect(refusal('redis+sentinel://s1:99999/m')).toMatch(/storage\.url: host 1 of the list is not host:port/)
    expect(refusal('redis+sentinel://s1/m?tls=1')).toMatch(/storage\.url: unknown parameter "tls"/)
    expect(refusal('redis+sentinel://s1/m?db=x')).toMatch(/storage\.url: db must be a database number/)
    expect(refusal('redis+cluster://n1:7000/2')).toMatch(/storage\.url: a cluster URL has no path or parameters/)
    expect(refusal('redis+cluster://n1:7000,,n2')).toMatch(/storage\.url: host 2 of the list is not host:port/)
  })

  it('never repeats the password in a refusal, even one that spills into the host list', () => {
    for (const url of ['redis+sentinel://:hunter2@s1:0/m', 'redis+cluster://:hunter2@n1:7000/x', 'redis+sentinel://:hun@ter2@s1/m', 'redis+sentinel://:hunter2@s1/m?db=hunter2']) {
      expect(refusal(url)).not.toMatch(/hunter|ter2/)
    }
  })

  it('accepts the Sentinel and Cluster forms through REDIS_URL too', () => {
    const config = parseConfig({}, { REDIS_URL: 'redis+cluster://n1:7000,n2:7001' })
    expect(config.storage).toMatchObject({ driver: 'redis', url: 'redis+cluster://n1:7000,n2:7001' })
  })
})
