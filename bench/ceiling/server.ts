// The ceiling: the fastest a Node server can answer the three operations on this machine.
// Raw node:http, no framework, no storage, no auth: reads answer a constant body computed
// once at start-up (20 pets for a list, one pet for a get); writes read and parse the JSON
// body, give it an id and answer 201. Anything a real service does costs on top of this.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

const STATUSES = ['available', 'pending', 'sold'] as const
const pets = Array.from({ length: 20 }, (_, i) => ({
  id: i + 1,
  name: `pet-${i + 1}`,
  categoryId: 1 + (i % 1000),
  status: STATUSES[i % 3]
}))
const LIST = Buffer.from(JSON.stringify(pets))
const ONE = Buffer.from(JSON.stringify(pets[0]))
const JSON_TYPE = 'application/json; charset=utf-8'
let nextId = 1

function send(res: ServerResponse, status: number, body: Buffer | string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') {
    send(res, 200, req.url!.startsWith('/v1/pets/') ? ONE : LIST)
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    let pet: Record<string, unknown>
    try {
      pet = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
    } catch {
      send(res, 400, '{"code":"bad_request","message":"the body is not valid JSON","status":400}')
      return
    }
    send(res, 201, JSON.stringify({ id: nextId++, ...pet }))
  })
}

const server = createServer({ keepAliveTimeout: 5000 }, onRequest)
server.listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? '127.0.0.1')
