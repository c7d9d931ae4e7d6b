/**
 * /api/upstream/<name>/** (every method): the browser's call to a configured API, with the user's
 * access token (server/utils/upstream-proxy.ts). 404 for an unknown name, 401 when signed out.
 */
import { getRouterParam } from 'h3'
import { defineBffHandler } from '../../../utils/bff/respond'
import { proxyToApi } from '../../../utils/upstream-proxy'

export default defineBffHandler((event) => proxyToApi(event, getRouterParam(event, 'name', { decode: false }) ?? ''))
