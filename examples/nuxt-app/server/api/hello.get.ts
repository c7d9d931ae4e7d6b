/** A server route of the app's own: requireUser (from the gateway layer) answers 401 for nobody signed in. */
export default defineEventHandler(async (event) => {
  const user = await requireUser(event)
  return { hello: `Hello ${user.email ?? 'there'}` }
})
