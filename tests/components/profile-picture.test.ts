/**
 * components/ProfilePicture.vue (the overview's picture section): what it shows for each source,
 * the checks it makes before an upload (type and size, with the cap in words), and the sentences
 * it says for the server's refusals. The gateway's routes are answered in the test environment
 * (tests/components/bff.ts); the real upload runs in tests/e2e/profile-picture.test.ts.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import ProfilePicture from '../../components/ProfilePicture.vue'
import { answer } from './bff'

const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada Lovelace', roles: [] }
const SETTINGS = { ok: true, data: { source: 'none', gravatarUrl: null, contentType: null, etag: null, maxBytes: 1024 * 1024 } }
const GRAVATAR = 'https://gravatar.com/avatar/0000000000000000000000000000000000000000000000000000000000000000?d=404&s=160'

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

async function mount(session: Record<string, unknown> = SIGNED_IN) {
  answer('GET', '/api/auth/session', 200, session)
  answer('GET', '/api/auth/picture/settings', 200, SETTINGS)
  await useAuth().load()
  const wrapper = await mountSuspended(ProfilePicture)
  mounted.push(wrapper)
  return wrapper
}
type Section = Awaited<ReturnType<typeof mount>>

/** Chooses `file` in the section's file input, as the browser's file picker would. */
async function choose(section: Section, file: File) {
  const input = section.find('input[type="file"]')
  Object.defineProperty(input.element, 'files', { value: [file], configurable: true })
  await input.trigger('change')
}

const alertText = (section: Section) => section.find('[role="alert"]').text()

describe('the profile picture section', () => {
  it('shows the initials and says there is no picture, with a file input for the three types', async () => {
    const section = await mount()
    expect(section.find('[data-testid="avatar-initials"]').text()).toBe('AL')
    expect(section.find('[data-testid="picture-source"]').text()).toBe('No picture: your initials are shown.')
    const input = section.find('input[type="file"]')
    expect(input.attributes('accept')).toBe('image/png,image/jpeg,image/webp')
    expect(section.find('label[for="picture-file"]').text()).toBe('Upload a picture')
    expect(section.find('#picture-hint').text()).toBe('PNG, JPEG or WebP, at most 1 MB. It replaces your current picture.')
    expect(section.findAll('button').map((b) => b.text())).toEqual(['Use Gravatar'])
  })

  it('refuses a file of another type and one over the cap on the page, without uploading', async () => {
    const upload = answer('PUT', '/api/auth/picture', 200, { ok: true })
    const section = await mount()
    await choose(section, new File(['<svg/>'], 'drawing.svg', { type: 'image/svg+xml' }))
    await vi.waitFor(() => expect(alertText(section)).toBe('This file is not a PNG, JPEG or WebP picture. Choose a picture in one of these formats.'))
    await choose(section, new File([new Uint8Array(1024 * 1024 + 1)], 'big.png', { type: 'image/png' }))
    await vi.waitFor(() => expect(alertText(section)).toBe('This picture is too large. Choose one of at most 1 MB, or make it smaller first.'))
    expect(upload.bodies).toHaveLength(0)
  })

  it('says the server refusal of the content in words', async () => {
    answer('PUT', '/api/auth/picture', 415, { ok: false, error: 'The picture is image/png but was sent as image/jpeg', code: 'picture_type_mismatch' })
    const section = await mount()
    await choose(section, new File([new Uint8Array([0x89, 0x50])], 'photo.jpg', { type: 'image/jpeg' }))
    await vi.waitFor(() =>
      expect(alertText(section)).toBe('The file’s content does not match its type. Save the picture again as PNG, JPEG or WebP and upload that file.'),
    )
    expect(section.find('[data-testid="picture-source"]').text()).toBe('No picture: your initials are shown.')
  })

  it('says the size the server allows when it refuses the picture as too large', async () => {
    answer('PUT', '/api/auth/picture', 413, { error: 'The picture is larger than 1048576 bytes', code: 'picture_too_large', limitBytes: 1048576 })
    const section = await mount()
    await choose(section, new File([new Uint8Array(10)], 'me.png', { type: 'image/png' }))
    await vi.waitFor(() => expect(alertText(section)).toBe('This picture is too large. Choose one of at most 1 MB, or make it smaller first.'))
  })

  it('shows the chosen Gravatar, and says so when Gravatar has no picture for the address', async () => {
    const section = await mount({ ...SIGNED_IN, picture: { source: 'gravatar', src: GRAVATAR } })
    const img = section.find('[data-testid="avatar-image"]')
    expect(img.attributes()).toMatchObject({ src: GRAVATAR, alt: '' })
    expect(section.find('[data-testid="picture-source"]').text()).toBe('You use your Gravatar picture.')
    expect(section.findAll('button').map((b) => b.text())).toEqual(['Remove picture'])
    await img.trigger('error')
    await vi.waitFor(() => expect(section.find('[data-testid="avatar-initials"]').text()).toBe('AL'))
    expect(section.find('[data-testid="picture-source"]').text()).toContain('Gravatar has no picture for your address')
  })

  it('chooses Gravatar through the BFF and reads the session again', async () => {
    const chosen = answer('POST', '/api/auth/picture/choice', 200, { ok: true, data: { ...SETTINGS.data, source: 'gravatar', gravatarUrl: GRAVATAR } })
    const section = await mount()
    await section.find('button').trigger('click')
    await vi.waitFor(() => expect(section.find('[role="status"]').text()).toBe('Your Gravatar picture is now used.'))
    expect(chosen.bodies).toEqual([{ source: 'gravatar' }])
  })
})
