import { buildIfStale } from './build'

export default function setup(): void {
  buildIfStale('build:iam', `${process.env.IAM_OUTPUT_DIR || 'iam/.output'}/server/index.mjs`, ['iam', 'package-lock.json'], /\/(\.output|\.nitro|node_modules)(\/|$)|iam\/tsconfig/)
}
