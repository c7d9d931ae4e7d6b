/**
 * Writes a small MaxMind DB (format 2.0, IPv4 tree, 24-bit records) for tests: a handful of
 * networks, each with a GeoIP2-style record. Enough for the `maxmind` reader; no aliasing, no
 * pointers in the data section.
 */
import { writeFileSync } from 'node:fs'

type Value = string | number | boolean | Value[] | { [key: string]: Value }

function control(type: number, size: number): Buffer {
  const head: number[] = []
  let sizeBits: number
  const extra: number[] = []
  if (size < 29) sizeBits = size
  else if (size < 285) {
    sizeBits = 29
    extra.push(size - 29)
  } else {
    sizeBits = 30
    const v = size - 285
    extra.push((v >> 8) & 0xff, v & 0xff)
  }
  if (type <= 7) head.push((type << 5) | sizeBits)
  else head.push(sizeBits, type - 7)
  return Buffer.from([...head, ...extra])
}

function uintBytes(n: number | bigint): Buffer {
  let v = BigInt(n)
  const bytes: number[] = []
  while (v > 0n) {
    bytes.unshift(Number(v & 0xffn))
    v >>= 8n
  }
  return Buffer.from(bytes)
}

/** Encodes one value in the MMDB data-section format (the MaxMind DB format's "Output Data Section"). */
export function encode(value: Value, asType?: 'uint16' | 'uint32' | 'uint64'): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8')
    return Buffer.concat([control(2, bytes.length), bytes])
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0)
  if (typeof value === 'number') {
    if (asType || (Number.isInteger(value) && value >= 0)) {
      const type = asType === 'uint16' ? 5 : asType === 'uint64' ? 9 : 6
      const bytes = uintBytes(value)
      return Buffer.concat([control(type, bytes.length), bytes])
    }
    const buf = Buffer.alloc(8)
    buf.writeDoubleBE(value)
    return Buffer.concat([control(3, 8), buf])
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map((v) => encode(v))])
  const entries = Object.entries(value)
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])])
}

/** Floats that happen to be whole (lat 52.0) must stay doubles: pass them as `{ double: n }`. */
export interface Network {
  /** "a.b.c.d/len" */
  cidr: string
  record: { [key: string]: Value }
}

export function writeMmdb(path: string, networks: Network[]): void {
  type Node = [number | Node | null, number | Node | null]
  const root: Node = [null, null]
  const data: Buffer[] = []
  let dataLength = 0
  const offsets: number[] = []
  for (const net of networks) {
    offsets.push(dataLength)
    const encoded = encode(net.record)
    data.push(encoded)
    dataLength += encoded.length
  }
  networks.forEach((net, index) => {
    const [ip, lenText] = net.cidr.split('/')
    const len = Number(lenText)
    const bits = ip!.split('.').reduce((acc, octet) => (acc << 8) | Number(octet), 0) >>> 0
    let node = root
    for (let depth = 0; depth < len; depth++) {
      const bit = (bits >>> (31 - depth)) & 1
      if (depth === len - 1) node[bit] = -(offsets[index]! + 1) // data marker, resolved below
      else {
        if (!Array.isArray(node[bit])) node[bit] = [null, null]
        node = node[bit] as Node
      }
    }
  })
  const order: Node[] = []
  const visit = (node: Node) => {
    order.push(node)
    for (const child of node) if (Array.isArray(child)) visit(child)
  }
  visit(root)
  const nodeCount = order.length
  const index = new Map(order.map((node, i) => [node, i]))
  const tree = Buffer.alloc(nodeCount * 6)
  order.forEach((node, i) => {
    node.forEach((child, side) => {
      let value: number
      if (Array.isArray(child)) value = index.get(child)!
      else if (typeof child === 'number') value = nodeCount + 16 + (-child - 1)
      else value = nodeCount
      tree.writeUIntBE(value, i * 6 + side * 3, 3)
    })
  })
  const metadata = Buffer.concat([
    control(7, 9),
    encode('node_count'), encode(nodeCount, 'uint32'),
    encode('record_size'), encode(24, 'uint16'),
    encode('ip_version'), encode(4, 'uint16'),
    encode('database_type'), encode('Test-City-ASN'),
    encode('languages'), encode(['en']),
    encode('binary_format_major_version'), encode(2, 'uint16'),
    encode('binary_format_minor_version'), encode(0, 'uint16'),
    encode('build_epoch'), encode(Math.floor(Date.now() / 1000), 'uint64'),
    encode('description'), encode({ en: 'test database' }),
  ])
  const marker = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')])
  writeFileSync(path, Buffer.concat([tree, Buffer.alloc(16), ...data, marker, metadata]))
}
