import { buildApp } from '../app.ts'
import { compose } from '../compose.ts'
import { describeDatabase, type Config } from '../config.ts'

/** A stuck request or store must not keep a stopping process alive forever. */
const SHUTDOWN_GRACE_MS = 10_000

/** Serves until SIGTERM/SIGINT, then drains in-flight requests, closes the stores and exits 0. */
export async function serve(config: Config): Promise<void> {
  const services = await compose(config)
  const { logger } = services
  const app = await buildApp(services)
  await app.listen({ port: config.port, host: config.host })
  logger.info(
    { database: describeDatabase(config.database), migrationsApplied: services.migrationsApplied, publicBaseUrl: config.publicBaseUrl },
    'animal-store serving'
  )

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'draining in-flight requests')
    setTimeout(() => {
      logger.error('shutdown took longer than 10 s: exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    void (async () => {
      await app.close()
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
