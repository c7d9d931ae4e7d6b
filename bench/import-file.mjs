// A users:import file of N lines for measuring the import: addresses import.<i>@example.com, a mix
// of the fixture formats (tests/fixtures/import) and lines without a hash. The bench's `import`
// row writes one of 1,000,000 lines; on its own:
//   node bench/import-file.mjs <out.jsonl> [lines, default 100,000]
import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** Writes `count` import lines to `out`; resolves once the file is complete. */
export async function writeImportFile(out, count) {
  const fixtures = join(import.meta.dirname, '..', 'tests', 'fixtures', 'import')
  const hashes = ['bcrypt', 'argon2', 'scrypt', 'pbkdf2-sha256', 'keycloak', 'firebase-scrypt'].flatMap((file) =>
    readFileSync(join(fixtures, `${file}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).passwordHash),
  )
  const stream = createWriteStream(out)
  for (let i = 0; i < count; i++) {
    const row = { email: `import.${i}@example.com`, name: `Imported ${i}`, emailVerified: i % 2 === 0, createdAt: '2024-01-01T00:00:00.000Z' }
    const hash = hashes[i % (hashes.length + 1)]
    if (!stream.write(JSON.stringify(hash === undefined ? row : { ...row, passwordHash: hash }) + '\n')) await new Promise((resolve) => stream.once('drain', resolve))
  }
  await new Promise((resolve, reject) => stream.end((error) => (error ? reject(error) : resolve())))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [out, count = '100000'] = process.argv.slice(2)
  if (!out) throw new Error('usage: node bench/import-file.mjs <out.jsonl> [lines]')
  await writeImportFile(out, Number(count))
}
