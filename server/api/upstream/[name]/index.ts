/** /api/upstream/<name> itself: the API's base path (the catch-all beside this file needs a segment). */
export { default } from './[...path]'
