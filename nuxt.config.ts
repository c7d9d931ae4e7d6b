import { fileURLToPath } from 'node:url'

// GATEWAY_TEST_BUILD=1 (the test suite's build, tests/helpers/build-gateway.ts): also compiles in
// server/test-build (the provider callbacks the gateway tests need). Production bundles never contain it.
const testBuild = process.env.GATEWAY_TEST_BUILD === '1'

// The gateway: a Nuxt 4 app whose pages are the login UI and whose server routes run the OAuth/OIDC
// flow and proxy the browser's actions to the IAM.
export default defineNuxtConfig({
  compatibilityDate: '2025-11-01',
  srcDir: '.',
  ignore: ['iam/**', 'tests/**', 'bench/**', 'scripts/**', '.data/**'],
  devtools: { enabled: false },
  telemetry: false,
  modules: ['@nuxtjs/i18n'],
  // The pages in the person's language (docs/i18n.md). `no_prefix`: the addresses apps, mails and the
  // OpenID Provider link to (/login, /auth/verify-email?token=…) stay the same in every language; the
  // language is the `locale` cookie (the name the IAM reads too), else Accept-Language, else English.
  i18n: {
    strategy: 'no_prefix',
    defaultLocale: 'en',
    langDir: 'locales',
    locales: [
      { code: 'en', language: 'en', name: 'English', file: 'en.json', dir: 'ltr' },
      { code: 'de', language: 'de', name: 'Deutsch', file: 'de.json', dir: 'ltr' },
      { code: 'fr', language: 'fr', name: 'Français', file: 'fr.json', dir: 'ltr' },
      { code: 'es', language: 'es', name: 'Español', file: 'es.json', dir: 'ltr' },
      { code: 'ja', language: 'ja', name: '日本語', file: 'ja.json', dir: 'ltr' },
      { code: 'ar', language: 'ar', name: 'العربية', file: 'ar.json', dir: 'rtl' },
    ],
    detectBrowserLanguage: { useCookie: true, cookieKey: 'locale', redirectOn: 'all', alwaysRedirect: false, fallbackLocale: 'en' },
  },
  typescript: { strict: true },
  runtimeConfig: {
    // NUXT_GATEWAY_CONFIG or GATEWAY_CONFIG: path of the gateway JSON config
    gatewayConfig: '',
    // NUXT_PUBLIC_SUPPORT_EMAIL: the address a suspended person is told to contact (components/SuspendedNotice.vue)
    // and the footer's Support link; both names are the defaults of the gateway config's `brand` (server/utils/brand.ts)
    // NUXT_PUBLIC_SITE_NAME: the name the pages call this site by where it speaks for itself (the
    // consent page says which apps it has not verified); as the IAM's email.siteName
    public: { supportEmail: '', siteName: 'Identity' },
  },
  // Code both apps run (shared/), by an alias of this layer's own: Nuxt's #shared points at the shared/
  // folder of the app being built, which for an app extending this layer is that app's, not ours.
  alias: { '#identity-shared': fileURLToPath(new URL('./shared', import.meta.url)) },
  // GATEWAY_OUTPUT_DIR / GATEWAY_BUILD_DIR: separate builds side by side.
  buildDir: process.env.GATEWAY_BUILD_DIR || '.nuxt',
  nitro: {
    preset: 'node-server',
    // as the IAM's (iam/nitro.config.ts): the Node release package.json's engines names
    esbuild: { options: { target: 'node22' } },
    output: { dir: process.env.GATEWAY_OUTPUT_DIR || '.output' },
    plugins: testBuild ? ['server/test-build/oauth-test-callbacks.ts', 'server/test-build/clock.ts'].map((path) => fileURLToPath(new URL(path, import.meta.url))) : [],
  },
})
