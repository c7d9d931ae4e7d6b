// A users:import file of N lines (default 100,000) for measuring the import: addresses
// import.<i>@example.com, a mix of the fixture formats (tests/fixtures/import) and lines without a
// hash. Usage: node bench/import-file.mjs <out.jsonl> [lines]
import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'

const [out, count = '100000'] = process.argv.slice(2)
if (!out) throw new Error('usage: node bench/import-file.mjs <out.jsonl> [lines]')
const fixtures = join(import.meta.dirname, '..', 'tests', 'fixtures', 'import')
const hashes = ['bcrypt', 'argon2', 'scrypt', 'pbkdf2-sha256', 'keycloak', 'firebase-scrypt'].flatMap((file) =>
  readFileSync(join(fixtures, `${file}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).passwordHash),
)
const stream = createWriteStream(out)
for (let i = 0; i < Number(count); i++) {
  const row = { email: `import.${i}@example.com`, name: `Imported ${i}`, emailVerified: i % 2 === 0, createdAt: '2024-01-01T00:00:00.000Z' }
  const hash = hashes[i % (hashes.length + 1)]
  if (!stream.write(JSON.stringify(hash === undefined ? row : { ...row, passwordHash: hash }) + '\n')) await new Promise((resolve) => stream.once('drain', resolve))
}
stream.end()
