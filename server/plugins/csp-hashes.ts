/**
 * Nuxt's server-rendered pages contain inline `<script>` (the app config) and `<style>` (component
 * CSS). Rather than `'unsafe-inline'`, the page CSP allows exactly those blocks by SHA-256 hash
 * (CSP3 hash-source), computed on the final HTML.
 */
import { createHash } from 'node:crypto'
import { BASE_CSP } from '../utils/security-headers'
import { brandImageOrigins } from '../utils/brand'
import { useGatewayConfig } from '../utils/gateway-config'

const INLINE_SCRIPT = /<script\b(?![^>]+\bsrc\s*=)[^>]*>([\s\S]*?)<\/script>/gi
const INLINE_STYLE = /<style\b[^>]*>([\s\S]*?)<\/style>/gi

function hashes(html: string, pattern: RegExp): string[] {
  const out = new Set<string>()
  for (const match of html.matchAll(pattern)) {
    if (match[1]) out.add(`'sha256-${createHash('sha256').update(match[1], 'utf8').digest('base64')}'`)
  }
  return [...out]
}

export default defineNitroPlugin((nitroApp) => {
  nitroApp.hooks.hook('render:response', (response) => {
    if (typeof response.body !== 'string') return
    const scripts = hashes(response.body, INLINE_SCRIPT)
    const styles = hashes(response.body, INLINE_STYLE)
    // the Turnstile-style widget's script and frame, from its one origin, when configured: on every
    // page, since a page the browser loaded first keeps its CSP through the app's own navigations
    // (from / to /signup); the script itself is loaded only by a form that needs it (useBotProof.ts)
    const config = useGatewayConfig()
    const widget = config.botChallenge.turnstileOrigin
    // a brand logo or favicon on another https origin: that origin for images only, never for scripts
    const images = brandImageOrigins(config.brand)
    const csp = [
      ...BASE_CSP.map((directive) => {
        if (directive.startsWith('script-src ')) return [directive, ...(widget ? [new URL(widget).origin] : []), ...scripts].join(' ')
        if (directive.startsWith('style-src ')) return [directive, ...styles].join(' ')
        if (directive.startsWith('img-src ')) return [directive, ...images].join(' ')
        return directive
      }),
      ...(widget ? [`frame-src ${new URL(widget).origin}`] : []),
    ].join('; ')
    response.headers = { ...response.headers, 'content-security-policy': csp }
  })
})
