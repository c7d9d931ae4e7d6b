/**
 * Where the IAM's Redis is, from `storage.url` (or REDIS_URL): one server, a Sentinel-watched
 * primary, or a Cluster. One string carries all three, so the environment override and the config
 * file stay one key:
 *
 *   redis://[[user]:password@]host:port[/db]                  one server (ioredis reads it as is)
 *   rediss://...                                               the same over TLS
 *   redis+sentinel://[[user]:password@]h1:p1,h2:p2/primaryName[?db=N]
 *   redis+cluster://[[user]:password@]h1:p1,h2:p2
 *
 * For Sentinel the hosts are the sentinels (default port 26379) and the path names the primary set
 * (sentinel.conf `sentinel monitor <name>`); the password authenticates to the primary and its
 * replicas. For Cluster the hosts are seed nodes (default port 6379); the client learns the rest.
 * Kept free of imports so the configuration check can use it; nothing here echoes a password.
 */

export type RedisNode = { host: string; port: number }

export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; db: number; username?: string; password?: string }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string }

export class RedisTargetError extends Error {
  override name = 'RedisTargetError'
}

const FORM = /^(redis\+sentinel|redis\+cluster):\/\/(?:([^@/?#]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/

const SENTINEL_FORM = 'redis+sentinel://[[user]:password@]host:26379,host:26379/primaryName[?db=0]'
const CLUSTER_FORM = 'redis+cluster://[[user]:password@]host:6379,host:6379'

function decodePart(text: string, what: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new RedisTargetError(`the ${what} is not valid percent-encoding`)
  }
}

function parseHosts(list: string, defaultPort: number, form: string): RedisNode[] {
  return list.split(',').map((entry, i) => {
    const match = HOST.exec(entry)
    const port = match?.[3] === undefined ? defaultPort : Number(match[3])
    // named by position, never quoted: a password holding '@' would spill into the host list
    if (!match || !(port >= 1 && port <= 65535)) throw new RedisTargetError(`host ${i + 1} of the list is not host:port (expected ${form})`)
    return { host: match[1] ?? match[2]!, port }
  })
}

function parseCredentials(userinfo: string | undefined): { username?: string; password?: string } {
  if (!userinfo) return {}
  const colon = userinfo.indexOf(':')
  const username = decodePart(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user name')
  const password = colon < 0 ? undefined : decodePart(userinfo.slice(colon + 1), 'password')
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) }
}

function parseDb(query: string | undefined): number {
  const params = new URLSearchParams(query ?? '')
  for (const key of params.keys()) {
    if (key !== 'db') throw new RedisTargetError(`unknown parameter ${JSON.stringify(key)} (expected ${SENTINEL_FORM})`)
  }
  const db = params.get('db') ?? '0'
  if (!/^\d{1,2}$/.test(db)) throw new RedisTargetError('db must be a database number (0 to 99)')
  return Number(db)
}

/** Reads `url`; throws RedisTargetError naming what is wrong (never the password). */
export function parseRedisTarget(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return { kind: 'single', url }
  if (!/^redis\+(sentinel|cluster):/.test(url)) {
    throw new RedisTargetError('the scheme must be redis:, rediss:, redis+sentinel: or redis+cluster:')
  }
  const match = FORM.exec(url)
  if (!match) throw new RedisTargetError(`not of the form ${url.startsWith('redis+sentinel:') ? SENTINEL_FORM : CLUSTER_FORM}`)
  const [, scheme, userinfo, hosts, path, query] = match
  const credentials = parseCredentials(userinfo)
  if (scheme === 'redis+cluster') {
    if (path || query) throw new RedisTargetError(`a cluster URL has no path or parameters (expected ${CLUSTER_FORM}; a cluster has database 0 only)`)
    return { kind: 'cluster', nodes: parseHosts(hosts!, 6379, CLUSTER_FORM), ...credentials }
  }
  const name = decodePart(path ?? '', 'primary name')
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new RedisTargetError(`the path must name the primary set (expected ${SENTINEL_FORM})`)
  return { kind: 'sentinel', sentinels: parseHosts(hosts!, 26379, SENTINEL_FORM), name, db: parseDb(query), ...credentials }
}
