/**
 * The test build's routes (iam/test-build, compiled in only with IAM_TEST_BUILD=1) still answer
 * only with IAM_TEST_ROUTES=1 outside production: a test build started by mistake stays inert.
 * Takes the env object so callers read it at run time (the bundler replaces a literal
 * `process.env.NODE_ENV`).
 */
export function testRoutesEnabled(env: Record<string, string | undefined>): boolean {
  return env['IAM_TEST_ROUTES'] === '1' && env['NODE_ENV'] !== 'production'
}
