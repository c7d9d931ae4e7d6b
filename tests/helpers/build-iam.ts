import { buildIfStale } from './build'

export default function setup(): void {
  buildIfStale('build:iam', 'iam/.output/server/index.mjs', ['iam', 'package-lock.json'], /\/(\.output|\.nitro|node_modules)(\/|$)|iam\/tsconfig/)
}
