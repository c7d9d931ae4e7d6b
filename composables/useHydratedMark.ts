/**
 * Marks the document interactive (`<html data-hydrated>`) once Vue has hydrated the page: before
 * that a form is plain HTML (it still posts without JS) and text typed into it can be reset by
 * hydration. Browser tests wait for the mark. Used by the two roots, app.vue and error.vue.
 */
export function useHydratedMark(): void {
  onMounted(() => {
    document.documentElement.dataset.hydrated = 'true'
  })
}
