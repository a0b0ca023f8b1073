import { writeFileSync } from 'node:fs'
import { buildOpenApi } from '@animal-store/contract'
import { GENERATED_PATH, renderApiTypes } from './api-types.ts'

// The servers do not reach the types, so any base address will do.
const doc = buildOpenApi({ publicBaseUrl: 'http://127.0.0.1:8080/v1' })
const target = new URL(`../${GENERATED_PATH}`, import.meta.url)
writeFileSync(target, renderApiTypes(doc))
console.log(`wrote ${target.pathname}`)
