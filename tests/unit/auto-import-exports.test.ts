/**
 * The gateway's auto-imported folders (server/utils for Nitro, composables and utils for the Nuxt
 * app) are scanned by unimport, which reads each file's exports with regular expressions, not a
 * parser. A declaration it misreads exports a name the file does not have, and the build then
 * wires that name into any chunk that uses it as a free identifier (the gateway build once warned
 * `"z" is not exported by server/utils/gateway-config.ts, imported by vue-i18n`). Here unimport's
 * own scanner reads each file, and TypeScript's parser says what the file really exports.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { scanExports } from 'unimport'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'

const SCANNED = ['server/utils', 'composables', 'utils']

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The names a module exports, from its syntax tree (types included: the scanner lists them too). */
function exportedNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const names = new Set<string>()
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text)
      continue
    }
    if (ts.isExportAssignment(statement)) {
      names.add('default')
      continue
    }
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    if (!exported) continue
    if (ts.getModifiers(statement as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) names.add('default')
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text)
    } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
      names.add((statement.name as ts.Identifier).text)
    }
  }
  return names
}

describe('auto-imported exports', () => {
  it('the import scanner reads no name an auto-imported file does not export', async () => {
    const misread: Record<string, string[]> = {}
    for (const file of SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
      const real = exportedNames(file)
      const scanned = await scanExports(file, true)
      const extra = [...new Set(scanned.map((found) => found.name))].filter((name) => !real.has(name))
      if (extra.length) misread[relative(ROOT, file)] = extra
    }
    expect(misread).toEqual({})
  })
})
