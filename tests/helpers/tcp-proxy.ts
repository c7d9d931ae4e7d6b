/**
 * A TCP proxy on 127.0.0.1 in front of a shared service (PostgreSQL, Redis, SMTP), so a test can
 * take that service away from one IAM without stopping it for the other test files using it:
 * `down()` closes every proxied connection and stops listening (new connections are refused, as
 * when the service is stopped); `up()` listens again on the same port (as when it restarts).
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** `host:port` of the proxy, to put in a URL */
  address: string
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    // a peer vanishing is the point of this proxy, not an error of the test
    socket.on('error', () => socket.destroy())
  }
  const onConnection = (client: Socket) => {
    const upstream = connect(target.port, target.host)
    track(client)
    track(upstream)
    client.pipe(upstream)
    upstream.pipe(client)
    client.once('close', () => upstream.destroy())
    upstream.once('close', () => client.destroy())
  }
  let server: Server = createServer(onConnection)
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve((server.address() as { port: number }).port)
      })
    })
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  const port = await listen(0)
  return {
    port,
    address: `127.0.0.1:${port}`,
    down: stopListening,
    async up() {
      if (server.listening) return
      server = createServer(onConnection)
      await listen(port)
    },
    close: stopListening,
  }
}
