/**
 * The brand a page renders (server/utils/brand.ts), on the request for the page's server render to
 * read (composables/useBrand.ts) and carry to the browser in its payload: the gateway config lives
 * only on the server, and no extra request is needed for the header of the first paint. Computed
 * once: the config and the runtime config do not change while the process runs.
 */
import { defineEventHandler } from 'h3'
import type { PublicBrand } from '../../shared/brand'
import { publicBrand } from '../utils/brand'
import { useGatewayConfig } from '../utils/gateway-config'

let brand: PublicBrand | undefined

export default defineEventHandler((event) => {
  if (!brand) {
    const { siteName, supportEmail } = useRuntimeConfig(event).public
    brand = publicBrand(useGatewayConfig().brand, { siteName, supportEmail })
  }
  event.context.brand = brand
})
