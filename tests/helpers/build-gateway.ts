import { buildIfStale } from './build'

export default function setup(): void {
  buildIfStale(
    'build:gateway',
    `${process.env.GATEWAY_OUTPUT_DIR || '.output'}/server/index.mjs`,
    ['app', 'app.vue', 'error.vue', 'layouts', 'assets', 'pages', 'components', 'composables', 'server', 'public', 'iam/client', 'iam/lib/ip.ts', 'iam/lib/read-bounded.ts', 'nuxt.config.ts', 'package-lock.json'],
    /\/(\.output|\.nuxt|node_modules)(\/|$)/,
  )
}
