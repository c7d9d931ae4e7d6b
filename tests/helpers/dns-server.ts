/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP) for MX checks and domain verification in
 * tests: answers MX, A and TXT queries from a zone map and NXDOMAIN for anything else. Config:
 * emailChecks.dnsServers or enterprise.dnsServers = [`127.0.0.1:${port}`]. The zone map may be
 * changed while the server runs (a record published later).
 */
import { createSocket } from 'node:dgram'

export interface Zone {
  mx?: string[]
  a?: string[]
  /** TXT records, each one string (at most 255 bytes) */
  txt?: string[]
}

export interface DnsServer {
  port: number
  server: string
  queries: { name: string; type: number }[]
  stop(): Promise<void>
}

const TYPE_A = 1
const TYPE_MX = 15
const TYPE_TXT = 16

function readName(buf: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = []
  let i = offset
  while (buf[i] !== 0) {
    const len = buf[i]!
    labels.push(buf.subarray(i + 1, i + 1 + len).toString('ascii'))
    i += len + 1
  }
  return { name: labels.join('.').toLowerCase(), next: i + 1 }
}

function encodeName(name: string): Buffer {
  const parts = name.split('.').filter(Boolean).map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')]))
  return Buffer.concat([...parts, Buffer.from([0])])
}

function answer(query: Buffer, zones: Record<string, Zone>): Buffer {
  const id = query.readUInt16BE(0)
  const { name, next } = readName(query, 12)
  const type = query.readUInt16BE(next)
  const question = query.subarray(12, next + 4)
  const zone = zones[name]
  const records: Buffer[] = []
  if (zone && type === TYPE_MX) {
    zone.mx?.forEach((host, i) => {
      const rdata = Buffer.concat([Buffer.from([0, (i + 1) * 10]), encodeName(host)])
      const head = Buffer.alloc(10)
      head.writeUInt16BE(TYPE_MX, 0)
      head.writeUInt16BE(1, 2)
      head.writeUInt32BE(60, 4)
      head.writeUInt16BE(rdata.length, 8)
      records.push(Buffer.concat([Buffer.from([0xc0, 0x0c]), head, rdata]))
    })
  }
  if (zone && type === TYPE_A) {
    for (const ip of zone.a ?? []) {
      const head = Buffer.alloc(10)
      head.writeUInt16BE(TYPE_A, 0)
      head.writeUInt16BE(1, 2)
      head.writeUInt32BE(60, 4)
      head.writeUInt16BE(4, 8)
      records.push(Buffer.concat([Buffer.from([0xc0, 0x0c]), head, Buffer.from(ip.split('.').map(Number))]))
    }
  }
  if (zone && type === TYPE_TXT) {
    for (const text of zone.txt ?? []) {
      const bytes = Buffer.from(text, 'utf8')
      const rdata = Buffer.concat([Buffer.from([bytes.length]), bytes])
      const head = Buffer.alloc(10)
      head.writeUInt16BE(TYPE_TXT, 0)
      head.writeUInt16BE(1, 2)
      head.writeUInt32BE(60, 4)
      head.writeUInt16BE(rdata.length, 8)
      records.push(Buffer.concat([Buffer.from([0xc0, 0x0c]), head, rdata]))
    }
  }
  const header = Buffer.alloc(12)
  header.writeUInt16BE(id, 0)
  // QR + AA + RD echoed; RCODE 3 (NXDOMAIN) when the name is unknown
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (zone ? 0 : 3), 2)
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(records.length, 6)
  return Buffer.concat([header, question, ...records])
}

export async function startDnsServer(zones: Record<string, Zone>): Promise<DnsServer> {
  const socket = createSocket('udp4')
  const queries: DnsServer['queries'] = []
  socket.on('message', (msg, rinfo) => {
    try {
      const { name, next } = readName(msg, 12)
      queries.push({ name, type: msg.readUInt16BE(next) })
      socket.send(answer(msg, zones), rinfo.port, rinfo.address)
    } catch {
      // malformed query: no answer, as a real server under abuse would
    }
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const port = socket.address().port
  return { port, server: `127.0.0.1:${port}`, queries, stop: () => new Promise((resolve) => socket.close(() => resolve())) }
}
