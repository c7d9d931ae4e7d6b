/**
 * A counter bumped after each upload of the account's picture (components/ProfilePicture.vue):
 * its address stays GET /api/auth/picture, and a browser keeps one image per address for the
 * document's life, so every <img> of it adds the counter to load the new one
 * (components/AccountAvatar.vue).
 */
export const usePictureVersion = () => useState('picture-version', () => 0)
