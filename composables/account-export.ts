/**
 * "Download your data" on the account page: GET /api/auth/export answers the file itself on
 * success (an attachment) and JSON otherwise, so it is fetched here rather than by bffFetch, which
 * reads every answer as JSON. The page keeps the usual `{ status, body }` for failures
 * (describeFailure, the re-authentication gate) and gets the file on success.
 */
import type { BffBody, BffResult } from './useBff'

export interface ExportFile {
  name: string
  blob: Blob
}

/** What the export answered: `file` on a 200, the BFF's JSON body otherwise. */
export interface ExportResult extends BffResult {
  file?: ExportFile
}

/** The name the download had before the gateway gave one (it always does). */
export const EXPORT_FALLBACK_NAME = 'account-export.json'

/** `account-export-<date>.json` from the answer's Content-Disposition (RFC 6266); the fallback for anything else. */
export function exportFileNameOf(disposition: string | null): string {
  return /^attachment; filename="(account-export-\d{4}-\d{2}-\d{2}\.json)"$/.exec(disposition ?? '')?.[1] ?? EXPORT_FALLBACK_NAME
}

/** Asks for the export; status 0 when the network failed (never throws). */
export async function fetchAccountExport(): Promise<ExportResult> {
  try {
    const res = await fetch('/api/auth/export', { headers: { accept: 'application/json', 'x-csrf': '1' }, credentials: 'same-origin', cache: 'no-store' })
    if (res.status === 200) return { status: 200, body: { ok: true }, file: { name: exportFileNameOf(res.headers.get('content-disposition')), blob: await res.blob() } }
    let body: unknown = {}
    try {
      body = JSON.parse(await res.text())
    } catch {
      body = {}
    }
    return { status: res.status, body: (body && typeof body === 'object' ? body : {}) as BffBody }
  } catch {
    return { status: 0, body: { ok: false, error: 'Could not reach the server. Check your connection and try again.' } }
  }
}

/** How long the file's object URL lives: the browser has taken the download long before. */
const URL_LIFE_MS = 60_000

/** Hands the file to the browser as a download (a link with `download`, clicked once). */
export function saveExportFile(file: ExportFile): void {
  const url = URL.createObjectURL(file.blob)
  const link = document.createElement('a')
  link.href = url
  link.download = file.name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), URL_LIFE_MS)
}
