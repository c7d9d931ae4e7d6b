/**
 * The double-submit token for forms that also work without JavaScript (hidden `_csrf` field). The
 * server sets the `__Host-csrf` cookie with the page (server/middleware/30.page-cookies.ts) and
 * hands the same value to the render through the event context.
 */
export function useCsrfToken() {
  const event = useRequestEvent()
  return useState<string>('csrf-token', () => {
    const token: unknown = event?.context.csrfToken
    return typeof token === 'string' ? token : ''
  })
}
