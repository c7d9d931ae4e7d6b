/** Every language's mail catalogue by its code (iam/contract/locales.ts). */
import type { Locale } from '../../../contract/locales'
import { ar } from './ar'
import { de } from './de'
import { en, type MailCatalogue } from './en'
import { es } from './es'
import { fr } from './fr'
import { ja } from './ja'

export const CATALOGUES: Readonly<Record<Locale, MailCatalogue>> = { en, de, fr, es, ja, ar }

/** A mail of the catalogue, by its key under `mails`. */
export type MailKind = keyof MailCatalogue['mails']
export const MAIL_KINDS = Object.keys(en.mails) as MailKind[]
export const isMailKind = (value: string): value is MailKind => Object.hasOwn(en.mails, value)
