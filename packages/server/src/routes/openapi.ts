import type { FastifyInstance } from 'fastify'
import { buildOpenApi, stringifyJson } from '@animal-store/contract'
import type { Config } from '../config.ts'

/** The document is built once per app from the contract and served as-is (public, rate limited per address). */
export function openApiText(config: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>): string {
  return `${stringifyJson(buildOpenApi({ publicBaseUrl: config.publicBaseUrl, stagingBaseUrl: config.stagingBaseUrl }), 2)}\n`
}

export function registerOpenApiRoute(app: FastifyInstance, config: Config): void {
  const text = openApiText(config)
  app.get('/v1/openapi.json', async (_request, reply) => {
    reply.type('application/json; charset=utf-8')
    return text
  })
}
