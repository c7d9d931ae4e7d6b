/** CSRF defence for every unsafe request to the BFF: server/utils/csrf.ts. */
import { defineEventHandler } from 'h3'
import { csrfRefusal } from '../utils/csrf'

export default defineEventHandler((event) => csrfRefusal(event))
