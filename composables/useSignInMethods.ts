/**
 * How the signed-in account signs in (GET /api/auth/sign-in-methods), for the account console's
 * parts that depend on it: the security part (set or change the password, linked accounts), the
 * data part (the export's "confirm it is you" asks for the password only when there is one) and
 * the overview's summary. Read once the session is known to be signed in, and again on `load()`
 * after a change.
 */
import { bffFetch } from './useBff'
import { useAuth } from './useAuth'

/** How the account signs in; null until known */
export interface SignInMethods {
  password: boolean
  totp: boolean
  passkeys: number
  providers: string[]
  /** the linked provider accounts (older IAMs leave it out) */
  linked?: Array<{ provider: string; email: string | null; linkedAt: string }>
}

export function useSignInMethods() {
  const { locale } = useI18n()
  const state = useAuth().state
  const methods = ref<SignInMethods | null>(null)
  /** when the methods cannot be read the password form is shown: the IAM refuses a change without a password anyway */
  const failed = ref(false)
  /** provider name -> display name (the sign-in buttons' labels), for the linked providers */
  const displayNames = ref<Record<string, string>>({})
  /** the linked providers by their display names */
  const providerNames = computed(() => (methods.value?.providers ?? []).map((name) => displayNames.value[name] ?? name))
  /** "Google", "Google and GitHub", "Google, GitHub and Apple": a list in the page's language (Intl.ListFormat) */
  const providersText = computed(() => new Intl.ListFormat(locale.value, { style: 'long', type: 'conjunction' }).format(providerNames.value))

  async function load(): Promise<void> {
    const result = await bffFetch('/api/auth/sign-in-methods')
    if (result.status !== 200) {
      failed.value = true
      return
    }
    const read = result.body.data as SignInMethods
    // the names people know first, so that no configured name (`google`) shows for a moment
    if (read.providers.some((name) => !(name in displayNames.value))) {
      const listed = await bffFetch('/api/auth/providers')
      const configured = (listed.status === 200 ? listed.body.providers : []) as Array<{ name: string; displayName: string }> | undefined
      displayNames.value = { ...displayNames.value, ...Object.fromEntries((configured ?? []).map((p) => [p.name, p.displayName])) }
    }
    methods.value = read
  }

  // in the browser only: the server renders before the session is read (components/AccountConsole.vue)
  if (import.meta.client) {
    let asked = false
    watch(
      () => state.value.status,
      (status) => {
        if (status !== 'signed-in' || asked) return
        asked = true
        void load()
      },
      { immediate: true },
    )
  }

  return { methods, failed, displayNames, providersText, load }
}
