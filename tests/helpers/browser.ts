/**
 * The system Chromium (/usr/bin/chromium, or CHROMIUM_PATH) through playwright-core: never a
 * downloaded browser. Each launch gets a fresh temporary profile, removed on close, so tests never
 * share cookies or storage.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { ROOT } from './build'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

// STACK.md: the flags that work on these machines (headless itself is playwright's `headless: true`).
// No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

export interface Browser {
  context: BrowserContext
  /** a new tab */
  newPage(): Promise<Page>
  close(): Promise<void>
}

export interface LaunchOptions {
  /** false: pages run no script of their own (a person who turned JavaScript off); default true */
  javaScriptEnabled?: boolean
}

/** Launches headless Chromium with a new temporary user-data-dir. */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
  const javaScriptEnabled = options.javaScriptEnabled ?? true
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    javaScriptEnabled,
  })
  return {
    context,
    async newPage() {
      const page = await context.newPage()
      // without script no page hydrates: what the server rendered is the page
      if (!javaScriptEnabled) return page
      // Vue's v-model sets each input's value when it hydrates, so text typed before then is lost:
      // goto and waitForURL return once the gateway page they reach is hydrated (app.vue marks it).
      const goto = page.goto.bind(page)
      page.goto = async (url, options) => {
        const response = await goto(url, options)
        await waitForHydration(page)
        return response
      }
      const waitForURL = page.waitForURL.bind(page)
      page.waitForURL = async (url, options) => {
        await waitForURL(url, options)
        await waitForHydration(page)
      }
      return page
    },
    async close() {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** Resolves once the page is hydrated, or at once for a page that is not a Nuxt page (an OpenID provider's). */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(
    () => !document.getElementById('__NUXT_DATA__') || document.documentElement.dataset.hydrated === 'true',
  )
}

/**
 * Saves a screenshot as test-results/<name>.png and returns its path: the full page, or only `clip`
 * (a part of the viewport, e.g. the header with its menu open).
 */
export async function saveScreenshot(page: Page, name: string, clip?: { x: number; y: number; width: number; height: number }): Promise<string> {
  const dir = join(ROOT, 'test-results')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')}.png`)
  await page.screenshot(clip ? { path, clip } : { path, fullPage: true })
  return path
}
