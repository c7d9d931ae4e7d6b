/** The four magic-link parameters of the current URL as a query string for the BFF, or null when incomplete. */
export function useLinkQuery() {
  const route = useRoute()
  return computed(() => {
    const params = new URLSearchParams()
    for (const key of ['token', 'random', 'reason', 'visitor']) {
      const value = route.query[key]
      if (typeof value !== 'string' || !value) return null
      params.set(key, value)
    }
    return params.toString()
  })
}
