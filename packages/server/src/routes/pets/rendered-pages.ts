import { Pets } from '@animal-store/contract'
import { andThen } from '../../base/maybe.ts'
import type { PageQuery, PetService } from '../../domain/pets/service.ts'
import { compileSerializer } from '../../http/hooks/errors/validation.ts'
import type { PetPages } from '../../http/services/page-cache.ts'

/** Pages read from the pet service and serialized by the contract's `Pets` schema. */
export function renderedPages(pets: PetService, baseUrl: string): PetPages {
  const serialize = compileSerializer(Pets)
  const nextLink = ({ limit, status }: PageQuery, cursor: string) =>
    `<${baseUrl}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${cursor}>; rel="next"`
  return {
    page: (query) =>
      andThen(pets.list(query), (found) => ({
        body: serialize(found.pets),
        link: found.next === undefined ? undefined : nextLink(query, found.next)
      }))
  }
}
