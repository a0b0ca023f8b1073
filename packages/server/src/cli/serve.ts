import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildAdminApp } from '../admin-app.ts'
import { buildApp } from '../app.ts'
import { compose } from '../compose.ts'
import { ConfigError, describeDatabase, type Config } from '../config.ts'
import type { Services } from '../services.ts'

/** A stuck request or store must not keep a stopping process alive forever. */
const SHUTDOWN_GRACE_MS = 10_000

/**
 * The operator listener on ADMIN_HOST:ADMIN_PORT, or undefined when it is off, or when the default
 * port is taken (a second instance on one machine): said in one line, and the API is served
 * without it. A port that was chosen and cannot be bound stops start-up.
 */
async function listenForOperators(services: Services, logger: Logger): Promise<FastifyInstance | undefined> {
  const admin = services.config.admin
  if (admin === undefined) return undefined
  const app = await buildAdminApp(services)
  try {
    await app.listen({ port: admin.port, host: admin.host })
    return app
  } catch (error) {
    await app.close()
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    if (!admin.portChosen && code === 'EADDRINUSE') {
      logger.warn(
        { adminPort: admin.port },
        `operator port ${admin.port} is in use (another instance?): serving the API without the operator listener; set ADMIN_PORT to give it one`
      )
      return undefined
    }
    throw new ConfigError(`ADMIN_PORT=${admin.port}: cannot listen on ${admin.host}:${admin.port} (${code})`)
  }
}

/** Serves until SIGTERM/SIGINT, then drains in-flight requests on both listeners, closes the stores and exits 0. */
export async function serve(config: Config): Promise<void> {
  const services = await compose(config)
  const { logger } = services
  const app = await buildApp(services)
  await app.listen({ port: config.port, host: config.host })
  let admin: FastifyInstance | undefined
  try {
    admin = await listenForOperators(services, logger)
  } catch (error) {
    await app.close()
    await services.close()
    throw error
  }
  logger.info(
    {
      database: describeDatabase(config.database),
      migrationsApplied: services.migrationsApplied,
      publicBaseUrl: config.publicBaseUrl,
      adminListener: admin === undefined ? 'off' : admin.server.address()
    },
    'animal-store serving'
  )
  // Lines are buffered (base/logger.ts): the ones that mark the process's life go out at once.
  logger.flush()

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'draining in-flight requests')
    logger.flush()
    setTimeout(() => {
      logger.error('shutdown took longer than 10 s: exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    void (async () => {
      await Promise.all([app.close(), admin?.close()])
      await services.close()
      logger.info('stopped')
      logger.flush()
      process.exit(0)
    })().catch((error: unknown) => {
      logger.error({ err: error }, 'shutdown failed')
      logger.flush()
      process.exit(1)
    })
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}
