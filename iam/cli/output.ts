/** How a command answers: text for people, one JSON document with --json; failures as one line. */

/** A failure the operator can act on: its message is the whole answer (stderr, exit 1). */
export class CliFailure extends Error {
  override name = 'CliFailure'
}

export interface Report {
  data: Record<string, unknown>
  text: string
}

export function report(result: Report, json: boolean): void {
  process.stdout.write(json ? `${JSON.stringify({ ok: true, ...result.data })}\n` : `${result.text}\n`)
}
