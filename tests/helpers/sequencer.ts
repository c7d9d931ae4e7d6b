/**
 * The order `npm test` hands its files to the pool: longest first over all projects at once.
 *
 * Vitest's own sequencer sorts by project name first (components, gateway, iam, unit), then by
 * duration within each project. With the four projects in one pool of workers, that started the
 * longest file of the run (admin-cli, 70-250 s) only once every components and gateway file had
 * been handed out, ~140 s into a loaded run, and it finished last; the unit files, one of them a
 * production build on a fresh clone, came after all of that. Longest first over the whole run is
 * the classic list-scheduling order: the long files start at once and the short ones fill the gaps.
 *
 * A file's length is its duration in vitest's results cache (node_modules/.vite/vitest, kept from
 * the last run that ran it). A file without one (a fresh clone, a new file) is estimated from what
 * makes a file long here: each server it starts or app it builds (~5 s apiece), then its size.
 */
import { readFileSync } from 'node:fs'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const START_MS = 5_000
// the calls that start an IAM, a gateway, an admin CLI run (admin-cli.test.ts) or a build
const STARTS = /\b(?:startIam|startIamExpectingExit|startGateway|setupStack|setupGateway|restart|cli|cliJson|cliTurn|spawn|spawnSync|execFile|build\w*InBackground)\(/g

export function estimatedMs(source: string): number {
  return (source.match(STARTS)?.length ?? 0) * START_MS + source.length / 100
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cost = new Map<TestSpecification, number>()
    for (const spec of files) {
      const cached = this.ctx.cache.getTestSpecificationResult(spec)
      cost.set(spec, cached ? cached.duration : estimatedMs(readFileSync(spec.moduleId, 'utf8')))
    }
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || cost.get(b)! - cost.get(a)!,
    )
  }
}
