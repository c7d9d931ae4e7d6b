// The page components the tests mount: tsc (tests/tsconfig.json) does not compile .vue files.
declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent
  export default component
}
