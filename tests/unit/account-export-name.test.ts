/**
 * The export file's name (iam/contract/account-export.ts), and the page's reading of it from the
 * download's Content-Disposition (composables/account-export.ts): the date of the export, and
 * nothing the page did not expect becomes a file name on the person's disk.
 */
import { describe, expect, it } from 'vitest'
import { EXPORT_FILE_NAME, exportFileName } from '../../iam/contract/account-export'
import { EXPORT_FALLBACK_NAME, exportFileNameOf } from '../../composables/account-export'

describe('the export file name', () => {
  it('names the file by the export’s UTC date', () => {
    expect(exportFileName('2026-11-27T23:59:59.999Z')).toBe('account-export-2026-11-27.json')
    expect(exportFileName(new Date('2026-01-02T00:00:00.000+02:00'))).toBe('account-export-2026-01-01.json')
    expect(EXPORT_FILE_NAME.test(exportFileName(new Date()))).toBe(true)
  })

  it('takes the name from an attachment Content-Disposition of the expected shape only', () => {
    expect(exportFileNameOf('attachment; filename="account-export-2026-11-27.json"')).toBe('account-export-2026-11-27.json')
    for (const header of [null, '', 'inline; filename="account-export-2026-11-27.json"', 'attachment; filename="../../.bashrc"', 'attachment; filename="account-export-2026-11-27.json.exe"', 'attachment; filename="evil.json"']) {
      expect(exportFileNameOf(header), String(header)).toBe(EXPORT_FALLBACK_NAME)
    }
  })
})
