// A team's own Nuxt app on top of the gateway: `extends` brings its pages, BFF routes, useAuth()
// and the server utils getUser / requireUser. Outside this repository the line names the package
// (`extends: ['identity-platform']`) or a git source instead of the relative path.
export default defineNuxtConfig({
  extends: ['../../'],
  compatibilityDate: '2025-11-01',
  // its own build and output, whatever the gateway's build settings say
  buildDir: process.env.EXAMPLE_BUILD_DIR || '.nuxt',
  nitro: { output: { dir: process.env.EXAMPLE_OUTPUT_DIR || '.output' } },
})
