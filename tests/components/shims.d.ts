// The page components the tests mount: tsc (tests/tsconfig.json) does not compile .vue files.
declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent
  export default component
}

// Nuxt's auto-imported useRouter, which the components project's Nuxt environment provides at run
// time; only the parts the tests read and call.
declare function useRouter(): { currentRoute: { value: { fullPath: string } }; push(to: string): Promise<unknown> }

// Nuxt's auto-imported clearNuxtState: the session state is shared by every mount of a file (useState).
declare function clearNuxtState(keys?: string | string[]): void

// The auto-imported composables/signed-up.ts flag the sign-up page sets for the account page.
declare function useSignedUpFlash(): { value: boolean }

// The auto-imported composables/useAuth.ts, as the refresh-on-focus test drives it.
declare function useAuth(): { state: { value: { status: string } }; load(options?: { fresh?: boolean }): Promise<{ status: string }> }

// The Nuxt app's i18n, as the failure-words test switches the page language.
declare function useNuxtApp(): { $i18n: { setLocale(locale: string): Promise<void> } }

// The auto-imported composables/failure-words.ts, as the failure-words test calls it (a page's sentences for a failed call).
type ShimBffResult = { status: number; body: Record<string, unknown> }
declare function useFailureWords(): {
  describeFailure(result: ShimBffResult): string
  formFailure(result: ShimBffResult, shownFields: readonly string[]): string | null
  fieldErrorsOf(result: ShimBffResult): Record<string, string>
}
