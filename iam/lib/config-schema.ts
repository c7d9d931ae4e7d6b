/**
 * The IAM configuration: one strict zod schema, every key with its default.
 * Unknown keys and bad values are errors naming the key; nothing here reads files or env.
 */
import { z } from 'zod'
import { ATOMIC_DRIVERS, refusedDriverMessage } from './storage/drivers'
import { DEFAULT_METRICS_ALLOW, isAllowEntry } from '../../shared/metrics-access'
import { contrastProblem, hexColor, httpsUrl } from '../../shared/brand'
import { HOST_PATTERN_MESSAGE, HOST_PATTERN_RE } from '../contract/host-pattern'
import { SUPPORTED_LOCALES } from '../contract/locales'

/** A host name (`mcp.example.com`) or every host below a domain (`*.example.com`), lowercase. */
const HOST_PATTERN = z.string().regex(HOST_PATTERN_RE, HOST_PATTERN_MESSAGE)

const MINUTE_MS = 60_000
/** A scope's description on the consent page: one line of plain text (the page escapes it). */
const SCOPE_DESCRIPTION = z.string().trim().min(1).max(200)
/** The text of a branded mail's buttons (iam/features/mail/templates.ts): fixed, so `email.brand.primaryColor` is checked against it. */
export const MAIL_BUTTON_TEXT = '#ffffff'
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS

const limiter = (points: number, duration: number, blockDuration: number) =>
  z
    .strictObject({
      points: z.number().int().positive(),
      /** seconds */
      duration: z.number().positive(),
      /** seconds; 0 = no block beyond the window */
      blockDuration: z.number().nonnegative(),
    })
    .default({ points, duration, blockDuration })

const ipOrIpPort = z.string().regex(/^[0-9a-fA-F:.[\]]+(:\d+)?$/, 'expected "ip" or "ip:port"')

const secret = z.string().min(32, 'a secret needs at least 32 characters')

/** A TOTP sealing key: its id is stored with each ciphertext; `key` is 32 bytes in base64url. */
const totpKeySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'key ids are 1-32 of [A-Za-z0-9_-]'),
  key: z.string().refine((v) => /^[A-Za-z0-9_-]{43}$/.test(v), 'expected 32 bytes in base64url (43 characters)'),
})

const argon2Schema = z
  .strictObject({
    memoryCost: z.number().int().min(8192).default(19456),
    timeCost: z.number().int().min(1).default(2),
    parallelism: z.number().int().min(1).default(1),
    /**
     * threads computing Argon2id, each one hash at a time (others wait in arrival order); the
     * cores the process may use, at most 8, unless set (features/passwords/hash-pool.ts)
     */
    threads: z.number().int().min(1).max(256).optional(),
  })
  .prefault({})

const providerSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'provider names are 1-64 of [A-Za-z0-9_-]'),
  useStandardProfile: z.boolean().optional(),
  /** maps our profile fields to the provider's: { id: 'user_id', email: 'mail', ... } */
  fields: z.record(z.string(), z.string()).optional(),
})

export const configSchema = z.strictObject({
  service: z
    .strictObject({
      publicUrl: z.url().default('http://127.0.0.1:3001'),
      /** the trusted client (the gateway) allowed to read /operational/config */
      clientIp: z.string().default('127.0.0.1'),
      /** allows PGlite / the memory storage in production when exactly one instance runs */
      singleNode: z.boolean().default(false),
      /** where the dev profile keeps its database, secrets and outbox */
      dataDir: z.string().default('.data'),
      /** SIGTERM: how long in-flight requests may take to finish before the rest are cut (NITRO_SHUTDOWN_TIMEOUT wins when set) */
      shutdownTimeoutMs: z.number().int().positive().default(10_000),
      /**
       * `GET /health` and the OpenID Provider's requests run the IAM's middleware and their route
       * on an h3 app of their own, without Nitro's per-request hooks (plugins/02.direct-lane.ts);
       * off: they take Nitro's path like every other request. The answers are the same
       * (tests/iam/direct-lane.test.ts).
       */
      directLane: z.boolean().default(true),
      proxy: z
        .strictObject({ trust: z.boolean().default(false), ipToTrust: z.string().optional() })
        .prefault({}),
      /** who may read GET /metrics without secrets.metricsToken: IPs or CIDRs of the resolved client IP */
      metrics: z
        .strictObject({ allow: z.array(z.string().refine(isAllowEntry, 'expected an IP address or CIDR')).default([...DEFAULT_METRICS_ALLOW]) })
        .prefault({}),
      Hmac: z
        .strictObject({
          clientId: z.string().min(1),
          sharedSecret: secret,
          maxClockSkew: z.number().int().positive().default(300_000),
          /**
           * Refuse the version 1 signature (iam/client/hmac.ts), which covers neither the body nor the
           * credential headers: whoever sees one signed request can send another body or another
           * user's cookie under it within the clock skew. false (for a client that signs only
           * version 1) is a dev-profile opt-out; production refuses to start with it.
           */
          requireBodyDigest: z.boolean().default(true),
        })
        .optional(),
    })
    .prefault({}),
  database: z
    .strictObject({
      /** postgres://... for PostgreSQL; absent => PGlite in <dataDir>/iam/db; "memory://" => PGlite in memory */
      url: z.string().optional(),
      /** PostgreSQL: how long a request waits for a connection (new or from the pool) before it is answered 503 */
      connectTimeoutMs: z.number().int().positive().default(1000),
      /**
       * PostgreSQL: send repeated statements as named prepared statements, planned once per
       * connection (fast/prepared.ts). false behind a pooler that cannot carry them (PgBouncer in
       * transaction mode before 1.21, or without max_prepared_statements).
       */
      preparedStatements: z.boolean().default(true),
      /**
       * PGlite: PostgreSQL's shared_buffers inside the WASM instance. PostgreSQL's own default
       * (128MB) is resident from the start there, a large share of an idle embedded IAM's memory
       * (docs/performance.md, "Idle RSS").
       */
      pgliteSharedBuffers: z.string().regex(/^[1-9][0-9]{0,5}(kB|MB|GB)$/, 'a size such as 16MB').default('16MB'),
      /**
       * PostgreSQL read replicas (postgres://... URLs of streaming standbys of database.url). Only
       * the reads a call site marks as allowed to lag go there (db/replicas.ts, `mayLag`); a replica
       * that fails is skipped and its reads run on the primary. Empty: every read on the primary.
       * The messages name an entry by its position, never its URL (it may carry a password).
       */
      replicas: z.array(z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')).max(16).default([]),
      /**
       * A replica whose lag (measured by its probe, every 5 s) is past this many seconds takes no
       * reads until it caught up: they run on the primary. Reads that may lag still should not show
       * an administrator a list minutes old. 0 allows only a replica that replayed all it received.
       */
      replicaMaxLagSeconds: z.number().min(0).max(86_400).default(30),
    })
    .prefault({})
    .refine((database) => database.replicas.length === 0 || /^postgres(ql)?:/.test(database.url ?? ''), {
      message: 'needs database.url to be PostgreSQL (the embedded database has no replicas)',
      path: ['replicas'],
    }),
  storage: z
    .strictObject({
      /** memory or redis; any other unstorage driver is refused: no atomic operations (storage/drivers.ts) */
      driver: z.enum(ATOMIC_DRIVERS, { error: (issue) => refusedDriverMessage(String(issue.input)) }).default('memory'),
      url: z.string().optional(),
      /** key namespace; every key is <prefix>:v2:<area>:<key> */
      prefix: z.string().regex(/^[A-Za-z0-9_-]+$/).default('iam'),
      /** Redis: connect and per-command bound; past it the request is answered 503 instead of queueing */
      timeoutMs: z.number().int().positive().default(1000),
    })
    .prefault({}),
  secrets: z
    .strictObject({
      /** HMAC key for one-time codes */
      codes: secret.optional(),
      /** HS256 key for magic-link JWTs */
      links: secret.optional(),
      /** Ed25519 private JWKs for access tokens; the first signs, all verify */
      accessTokenKeys: z.array(z.record(z.string(), z.unknown())).optional(),
      /** Bearer secret that admits a scraper to GET /metrics from any address */
      metricsToken: secret.optional(),
      /** AES-256-GCM keys sealing TOTP secrets and OpenID client secrets at rest; the first seals, all open (rotation) */
      totpKeys: z.array(totpKeySchema).min(1).optional(),
      /**
       * The OpenID Provider's signing keys: private JWKs (RSA for RS256, the default ID token
       * algorithm; EC P-256 or Ed25519 for clients that ask for ES256 or EdDSA). The first of each
       * type signs, all are published (rotation: docs/operations.md). Required in production.
       */
      oidcKeys: z.array(z.record(z.string(), z.unknown())).min(1).optional(),
      /** keys signing the OpenID Provider's cookies, newest first; absent = derived from secrets.codes */
      oidcCookieKeys: z.array(secret).min(1).optional(),
      /** the initial access token dynamic client registration asks for (oidc.registration.access: initialAccessToken) */
      oidcRegistrationToken: secret.optional(),
    })
    .prefault({}),
  jwt: z
    .strictObject({
      access_tokens: z
        .strictObject({
          expiresInMs: z.number().int().positive().default(15 * MINUTE_MS),
          issuer: z.string().default('http://127.0.0.1:3001'),
          audience: z.string().default('http://127.0.0.1:3000'),
        })
        .prefault({}),
      /**
       * The per-API access tokens the gateway's API proxy asks for (POST /auth/user/api-access-token,
       * iam/features/tokens/api-access-token.ts): `audiences` are the only `aud` values they are
       * issued for (each API's `apis[].audience` in the gateway config; none by default), and
       * `expiresInMs` their life, never past the session token they are asked with.
       */
      api_access_tokens: z
        .strictObject({
          audiences: z
            .array(z.string().min(1))
            .default([])
            .refine((list) => new Set(list).size === list.length, 'audiences must be unique'),
          expiresInMs: z.number().int().positive().default(5 * MINUTE_MS),
        })
        .prefault({}),
      refresh_tokens: z
        .strictObject({
          domain: z.string().default('localhost'),
          refresh_ttl: z.number().int().positive().default(7 * DAY_MS),
          rememberMe_ttl: z.number().int().positive().default(30 * DAY_MS),
          MAX_SESSION_LIFE: z.number().int().positive().default(30 * DAY_MS),
          reuseGraceMs: z.number().int().nonnegative().default(10_000),
          maxAllowedSessionsPerUser: z.number().int().positive().default(5),
          /** accepted for older configs and ignored: a session that passed a code is not asked again for a count (evaluate-anomalies.ts, checks 5 and 6) */
          byPassAnomaliesFor: z.number().int().nonnegative().default(3 * HOUR_MS),
        })
        .prefault({}),
    })
    // a per-API token for the session audience would be taken as a session token wherever those are
    .refine((jwt) => !jwt.api_access_tokens.audiences.includes(jwt.access_tokens.audience), {
      message: 'may not name jwt.access_tokens.audience (the session tokens\' own audience)',
      path: ['api_access_tokens', 'audiences'],
    })
    .prefault({}),
  magic_links: z
    .strictObject({
      domain: z.url().default('http://127.0.0.1:3000'),
      paths: z
        .strictObject({
          mfa: z.string().startsWith('/').default('/auth/mfa'),
          passwordReset: z.string().startsWith('/').default('/reset-password'),
          custom: z.string().startsWith('/').default('/auth/confirm'),
          verifyEmail: z.string().startsWith('/').default('/auth/verify-email'),
          undoEmailChange: z.string().startsWith('/').default('/auth/undo-email-change'),
          /** the gateway page that accepts an organization invitation (the token in the query) */
          orgInvitation: z.string().startsWith('/').default('/orgs/invitations/accept'),
          /** the gateway page that confirms a requested account deletion */
          deleteAccount: z.string().startsWith('/').default('/auth/delete-account'),
          /** the gateway page that cancels a confirmed deletion before the purge */
          undoDeleteAccount: z.string().startsWith('/').default('/auth/undo-delete-account'),
          /** the gateway page that finishes a sign-in by emailed link (signIn.emailLink) */
          emailSignIn: z.string().startsWith('/').default('/auth/email-sign-in'),
        })
        .prefault({}),
      expiresInMs: z.number().int().positive().default(15 * MINUTE_MS),
      previews: z.number().int().positive().default(5),
      attempts: z.number().int().positive().default(3),
      // a mailbox may be read a day later; an undo must outlast a holiday
      verifyEmailExpiresInMs: z.number().int().positive().default(24 * HOUR_MS),
      undoEmailChangeExpiresInMs: z.number().int().positive().default(7 * 24 * HOUR_MS),
    })
    .prefault({}),
  codes: z.strictObject({ ttlMs: z.number().int().positive().default(7 * MINUTE_MS) }).prefault({}),
  email: z
    .strictObject({
      from: z.string().default('Identity <no-reply@localhost>'),
      siteName: z.string().default('Identity'),
      /**
       * A team's brand in every mail (iam/features/mail/templates.ts; the pages have the gateway's
       * `brand`): the logo over the card, buttons in `primaryColor` with white text (so refused
       * below 4.5:1 on it, shared/brand.ts), and a footer with the support address and legal pages.
       * Absent, mails are the default layout. https only: a mail client loads the logo from anywhere.
       */
      brand: z
        .strictObject({
          logoUrl: httpsUrl.optional(),
          primaryColor: hexColor
            .superRefine((color, ctx) => {
              const problem = contrastProblem(color, MAIL_BUTTON_TEXT)
              if (problem) ctx.addIssue({ code: 'custom', message: problem })
            })
            .optional(),
          supportEmail: z.email().optional(),
          legal: z.strictObject({ termsUrl: httpsUrl.optional(), privacyUrl: httpsUrl.optional() }).optional(),
        })
        .optional(),
      smtp: z
        .strictObject({
          host: z.string(),
          port: z.number().int().min(1).max(65535),
          secure: z.boolean().default(false),
          auth: z.strictObject({ user: z.string(), pass: z.string() }).optional(),
        })
        .optional(),
    })
    .prefault({}),
  password: z
    .strictObject({
      policy: z
        .strictObject({
          minLength: z.number().int().min(8).default(12),
          maxLength: z.number().int().max(1024).default(128),
          // zxcvbn score a new password must reach (password-strength.ts); 0 switches the check off.
          // 3 = at least ~10^8 estimated guesses: far beyond online guessing under the login limits,
          // and costly offline against Argon2id; 4 (10^10) refuses many memorable passphrases.
          minScore: z.number().int().min(0).max(4).default(3),
        })
        .prefault({}),
      argon2: argon2Schema,
      pepper: secret.optional(),
      breachCheck: z
        .strictObject({
          enabled: z.boolean().default(true),
          rangeApiUrl: z.url().default('https://api.pwnedpasswords.com/range/'),
          failOpen: z.boolean().default(true),
          timeoutMs: z.number().int().positive().default(1500),
        })
        .prefault({}),
    })
    .prefault({}),
  /** the account's picture (features/users/profile-picture.ts, docs/accounts.md "Profile picture") */
  profilePicture: z
    .strictObject({
      /**
       * the largest upload PUT /auth/picture takes, in bytes (413 `picture_too_large` above); at
       * most 8 MiB, the database's check (migration 0027): every read of the picture carries it whole
       */
      maxBytes: z
        .number()
        .int()
        .positive()
        .max(8 * 1024 * 1024)
        .default(1024 * 1024),
    })
    .prefault({}),
  /** self-service deletion (features/account-deletion, docs/accounts.md) */
  accountDeletion: z
    .strictObject({
      /** how long a confirmed deletion can be undone; the purge erases the account after it */
      undoWindowMs: z.number().int().positive().default(7 * DAY_MS),
      /** how often each instance runs the purge (plugins/02.account-purge.ts); 0: never (the CLI's users:purge only) */
      // a timer's period: at most 2^31-1 ms (about 24 days)
      purgeEveryMs: z.number().int().nonnegative().max(2 ** 31 - 1).default(HOUR_MS),
    })
    .prefault({}),
  /**
   * Signed webhooks (features/webhooks, docs/webhooks.md): the delivery worker of each instance
   * (plugins/03.webhooks.ts) and how far its requests may reach.
   */
  webhooks: z
    .strictObject({
      /**
       * false: webhooks are off on this instance: no event is queued, no timer polls the database
       * (an IAM that serves no webhooks sends no statement for them), endpoints can still be managed
       */
      enabled: z.boolean().default(true),
      /** whether this instance runs the delivery worker; events are queued either way */
      worker: z.boolean().default(true),
      /** how often the worker looks for due deliveries (and re-reads which types are subscribed) */
      pollMs: z.number().int().min(10).max(60_000).default(1000),
      /** deliveries one instance has in flight at once (it takes more as answers free slots, not only at its poll) */
      batch: z.number().int().min(1).max(500).default(20),
      /**
       * of those, at most this many to one endpoint (half of the default batch): a receiver that
       * answers slowly or not at all (an organization's, whose owners chose it) holds its own slots,
       * not the whole worker
       */
      maxInFlightPerEndpoint: z.number().int().min(1).max(500).default(10),
      /** how long a taken delivery is this instance's; after it another instance takes it again (a crash loses nothing) */
      leaseMs: z.number().int().min(1000).max(HOUR_MS).default(MINUTE_MS),
      /** one deadline per request: lookup, connect, answer */
      timeoutMs: z.number().int().min(100).max(MINUTE_MS).default(10_000),
      /** the largest answer read from a receiver; a larger one counts as a failed attempt */
      maxResponseBytes: z.number().int().min(1024).max(1024 * 1024).default(64 * 1024),
      /**
       * The waits between attempts after the first (sent at once): ten attempts over about three
       * days by default. Each wait is stretched by up to `jitter` at random, so that the retries of
       * an outage do not arrive together; a longer Retry-After wins.
       */
      retryScheduleMs: z
        .array(z.number().int().nonnegative().max(7 * DAY_MS))
        .max(30)
        .default([5_000, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 14 * HOUR_MS, 20 * HOUR_MS, 24 * HOUR_MS]),
      jitter: z.number().min(0).max(1).default(0.1),
      /** how long the previous secret keeps signing beside the new one after a rotation */
      secretOverlapMs: z.number().int().nonnegative().max(30 * DAY_MS).default(DAY_MS),
      /** an endpoint is switched off after this many failed attempts in a row ... */
      disableAfterFailures: z.number().int().min(1).default(50),
      /** ... once it has failed for at least this long without a success */
      disableAfterFailingMs: z.number().int().nonnegative().default(5 * DAY_MS),
      /**
       * How long a settled delivery (delivered, or given up) stays in the delivery log with its
       * attempts, counted from its event; then the worker deletes it (features/webhooks/retention.ts).
       * A pending delivery is never deleted. 0: the log keeps every delivery.
       */
      retentionMs: z.number().int().nonnegative().max(3650 * DAY_MS).default(30 * DAY_MS),
      /**
       * ranges the platform's endpoints may be at although outbound calls refuse them (shared/outbound.ts),
       * e.g. a company network; not an organization's endpoints (features/webhooks/policy.ts)
       */
      allowAddresses: z.array(z.string().refine(isAllowEntry, 'expected an IP address or CIDR')).default([]),
      /**
       * ranges every organization's endpoints may be at although refused: whoever founds an
       * organization chooses its URLs, so only for development and tests, or a deployment whose
       * organizations are all trusted
       */
      organizationAllowAddresses: z.array(z.string().refine(isAllowEntry, 'expected an IP address or CIDR')).default([]),
      /** plain http receivers: development and tests only (refused in production) */
      allowHttp: z.boolean().default(false),
    })
    .prefault({}),
  /** what users:import needs to verify the hashes it brought in (imported-hashes.ts) */
  import: z
    .strictObject({
      /** Firebase's project-wide scrypt parameters (Authentication > Users > Password hash parameters) */
      firebase: z
        .strictObject({
          signerKey: z.string().regex(/^[A-Za-z0-9+/_-]+={0,2}$/, 'expected base64'),
          saltSeparator: z.string().regex(/^[A-Za-z0-9+/_-]+={0,2}$/, 'expected base64'),
          rounds: z.number().int().min(1).max(32),
          memCost: z.number().int().min(1).max(20),
        })
        .optional(),
    })
    .prefault({}),
  /** Verified domains and SAML sign-in per organization (features/enterprise, docs/enterprise.md) */
  enterprise: z
    .strictObject({
      /**
       * The gateway's public origin: SAML service provider entity ids and ACS URLs are under it
       * (`/sso/saml/{connectionId}/metadata`, `/sso/saml/{connectionId}/acs`), as the gateway forwards them
       */
      gatewayOrigin: z
        .url()
        .refine((v) => /^https?:\/\/[^/?#]+$/.test(v), 'an origin: scheme and host, no path, e.g. https://id.example.com')
        .default('http://localhost:3000'),
      /** how many domains one organization may claim */
      maxDomainsPerOrg: z.number().int().positive().max(100).default(10),
      /** the DNS servers TXT records are read from ("ip" or "ip:port"); absent: the system's */
      dnsServers: z.array(ipOrIpPort).optional(),
      dnsTimeoutMs: z.number().int().positive().default(3000),
      /**
       * how often each instance re-reads the domains that require SSO (features/enterprise/sso-required.ts):
       * a change made on another instance is enforced here within this; 0 re-reads only at boot and
       * after this instance's own changes (one instance alone)
       */
      ssoRequiredRefreshMs: z.number().int().min(0).max(10 * MINUTE_MS).default(10_000),
      saml: z
        .strictObject({
          /** how far the provider's clock may be from ours (NotBefore, NotOnOrAfter) */
          clockSkewMs: z.number().int().nonnegative().max(5 * MINUTE_MS).default(60_000),
          /** the oldest assertion accepted after its IssueInstant, whatever its NotOnOrAfter */
          maxAssertionAgeMs: z.number().int().positive().max(60 * MINUTE_MS).default(5 * MINUTE_MS),
          /** how long an AuthnRequest we sent waits for its answer */
          requestTtlMs: z.number().int().positive().max(60 * MINUTE_MS).default(10 * MINUTE_MS),
        })
        .prefault({}),
    })
    .prefault({}),
  emailChecks: z
    .strictObject({
      mx: z.boolean().default(true),
      dnsServers: z.array(ipOrIpPort).optional(),
      disposable: z.boolean().default(true),
    })
    .prefault({}),
  providers: z.array(providerSchema).default([]),
  apiTokens: z
    .strictObject({
      limitTokensPerUser: z.number().int().positive().default(20),
      rateLimitOnSuccessfulRequest: z.boolean().default(false),
    })
    .prefault({}),
  rate_limiters: z
    .strictObject({
      apiTokensLimiters: z
        .strictObject({
          consumptionRateLimiter: limiter(10, 60, 3600),
          generalUnionLimiter: z
            .strictObject({ burst: limiter(1, 1, 900), slow: limiter(50, 60, 3600) })
            .prefault({}),
          operationRateLimits: z
            .strictObject({
              newTokenCreationLimiter: limiter(5, 600, 3600),
              revokeTokensLimiter: limiter(5, 600, 7200),
              getMetadataTokenLimiter: limiter(20, 2, 1800),
              rotationRateLimiter: limiter(5, 600, 7200),
              ipRestrictionUpdate: limiter(5, 600, 1800),
              privilegeUpdate: limiter(5, 600, 1800),
            })
            .prefault({}),
        })
        .prefault({}),
      // The IAM's own limiters (docs/configuration.md): per IP or IP + subject (never an email alone).
      signup: limiter(10, 3600, 3600),
      login: limiter(10, 900, 900),
      oauth: limiter(30, 60, 300),
      refresh: limiter(60, 60, 300),
      links: limiter(20, 600, 900),
      codes: limiter(10, 600, 900),
      forgotPassword: limiter(5, 3600, 3600),
      /** POST /auth/email-sign-in per IP, and per IP + address (the mail per address is also under `mailbox`) */
      emailSignIn: limiter(10, 3600, 3600),
      emails: limiter(10, 3600, 3600),
      /** GET /check without a known canary (each one writes a visitor row), per client IP */
      check: limiter(30, 60, 60),
      /**
       * POST /auth/passkeys/login/options per client IP, apart from the login budget: the sign-in
       * page asks for options on every load (passkey autofill), and loads are not sign-in failures.
       * Each answer stores a challenge, so it stays bounded.
       */
      passkeyOptions: limiter(60, 60, 60),
      /**
       * Device flow user code submissions (POST /oidc/device), per client IP and per provider
       * browser session, right or wrong: RFC 8628 section 5.1 asks for user code entry to be rate
       * limited, as a code is short enough to type. Connecting a device takes two (the code, then
       * the confirmation), so 20 in 15 minutes leaves room for typos and several devices.
       */
      deviceUserCode: limiter(20, 900, 900),
      /**
       * Dynamic client registrations (POST /oidc/reg) per client IP, when `oidc.registration` is on:
       * each stores a client, so with `access: "open"` anyone could otherwise fill the client
       * table. 10 an hour covers a developer's tries and a CLI installed on a few machines.
       */
      oidcRegistration: limiter(10, 3600, 3600),
      // per account (the normalised email, known or not): a progressive delay, never a block
      loginAccountDelay: z
        .strictObject({
          freeAttempts: z.number().int().positive().default(5),
          baseDelayMs: z.number().int().positive().default(1000),
          maxDelayMs: z.number().int().positive().default(MINUTE_MS),
          windowMs: z.number().int().positive().default(15 * MINUTE_MS),
        })
        .prefault({}),
      resendVerification: limiter(3, 3600, 3600),
      /** GET /auth/export per user: each answer reads the whole account (every security event included) */
      export: limiter(5, 3600, 3600),
      /**
       * PUT /auth/picture per user: each upload writes up to `profilePicture.maxBytes` into the
       * database. 20 an hour leaves room for trying crops; a script cannot churn the table.
       */
      picture: limiter(20, 3600, 3600),
      /**
       * An organization's webhook changes (add, change, rotate the secret) and test events and
       * replays, per user: any signed-in person can found an organization, and each call resolves
       * a host name or queues deliveries on the worker every organization and the platform share.
       * 60 an hour is plenty for setting endpoints up.
       */
      organizationWebhooks: limiter(60, 3600, 3600),
      /**
       * Reset and verification link mails per recipient address, whoever asks: over it a mail is
       * not sent (the request is answered as usual). 5 an hour leaves a sign-up's mail, its 3
       * resends and a reset; no block beyond the window, so mails resume when it ends.
       */
      mailbox: limiter(5, 3600, 0),
    })
    .prefault({}),
  anomalies: z
    .strictObject({
      ipDrift: z.enum(['subnet', 'exact', 'off']).default('subnet'),
      /** a session unused this long asks for the emailed code: a week, so a weekend away is no challenge */
      idleMs: z.number().int().positive().default(7 * DAY_MS),
      velocity: z
        .strictObject({
          /** more devices than this opening sessions within windowMs ask the last one for the emailed code */
          count: z.number().int().positive().default(4),
          windowMs: z.number().int().positive().default(10 * MINUTE_MS),
        })
        .prefault({}),
      /** a proxy or hosting network counts as a reputation anomaly unless allowed */
      allowProxy: z.boolean().default(false),
    })
    .prefault({}),
  botDetector: z
    .strictObject({ enabled: z.boolean().default(true), banScore: z.number().int().positive().default(100) })
    .prefault({}),
  geo: z.strictObject({ mmdbPath: z.string().optional() }).prefault({}),
  /**
   * Proof of work before sign-up, a password reset mail and an email sign-in mail
   * (features/bot-challenge/bot-proof.ts, docs/bot-challenge.md): the browser finds a number below
   * `maxNumber` by hashing, on average maxNumber / 2 SHA-256 hashes (100,000: well under a second
   * on a phone, a real cost for a script making thousands of accounts).
   *
   * Off by default: on, POST /signup and POST /auth/forgot-password need a solved `botProof`, which
   * the IAM's HTTP contract for those routes does not name (docs/accounts.md), so a deployment turns
   * it on together with the gateway's pages, which solve it. The configuration `npm start` generates
   * turns it on (scripts/start.mjs devConfigs).
   */
  botChallenge: z
    .strictObject({
      enabled: z.boolean().default(false),
      maxNumber: z.number().int().min(1000).max(10_000_000).default(100_000),
      /** how long a challenge may be solved and used; a solution is spent once */
      expiresInMs: z.number().int().positive().max(60 * MINUTE_MS).default(10 * MINUTE_MS),
      /**
       * POST /login asks for the check too once the client IP or the address has this many recent
       * failures (the login limiters' windows, features/users/login-service.ts); 0 = never
       */
      loginAfterFailures: z.number().int().min(0).max(1000).default(3),
      /** `pow`: the proof of work above; `turnstile`: a Turnstile-style widget whose token the IAM asks its provider about (features/bot-challenge/turnstile.ts) */
      provider: z.enum(['pow', 'turnstile']).default('pow'),
      turnstile: z
        .strictObject({
          /** the widget's public key, handed to the page by GET /auth/bot-challenge */
          siteKey: z.string().min(1).max(256).optional(),
          /** the key siteverify calls carry; never leaves the IAM */
          secretKey: z.string().min(1).max(256).optional(),
          verifyUrl: z.url({ protocol: /^https?$/ }).default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
          /** the deadline of one siteverify call; past it the form is answered 503, never let through */
          timeoutMs: z.number().int().positive().max(30_000).default(5_000),
          /** lets `verifyUrl` be a loopback address over http (development and tests; refused in production) */
          allowLoopbackRequests: z.boolean().default(false),
        })
        .prefault({}),
    })
    .refine((b) => b.provider !== 'turnstile' || (b.turnstile.siteKey && b.turnstile.secretKey), {
      message: 'provider "turnstile" needs turnstile.siteKey and turnstile.secretKey',
      path: ['turnstile'],
    })
    .prefault({}),
  /**
   * Email as a first factor (docs/configuration.md): a single-use link bound to the browser that
   * asked, and/or a code typed on any device. Off by default: whoever reads the mailbox signs in,
   * so a deployment turns it on knowing its users' mailboxes carry that weight.
   */
  signIn: z
    .strictObject({
      emailLink: z.boolean().default(false),
      emailCode: z.boolean().default(false),
      /** how long an emailed sign-in link (and its code) lives */
      expiresInMs: z.number().int().positive().max(60 * MINUTE_MS).default(15 * MINUTE_MS),
    })
    .prefault({}),
  secondFactor: z
    .strictObject({
      /** the issuer authenticator apps show; absent = email.siteName */
      totp: z.strictObject({ issuer: z.string().min(1).max(64).optional() }).prefault({}),
      /** how long the sign-in step after a right password lives */
      challengeTtlMs: z.number().int().positive().default(5 * MINUTE_MS),
      challengeAttempts: z.number().int().positive().max(20).default(5),
      /**
       * One failure budget per account for second-factor codes, across challenges and routes (the
       * sign-in step, disable, custom MFA, email change, re-authentication): `failures` wrong codes
       * within `windowMs` lock code entry for the account for `lockMs` and mail the owner. A
       * 6-digit TOTP code with one step of drift has 3 right answers in 10^6: 10 guesses per 15
       * minutes give someone who knows the password about 9% in a month of non-stop guessing
       * (2,880 windows x 10 x 3 / 10^6), and every lock mails the owner, who learns the password is out.
       */
      accountFailures: z
        .strictObject({
          failures: z.number().int().positive().max(100).default(10),
          windowMs: z.number().int().positive().default(15 * MINUTE_MS),
          lockMs: z.number().int().positive().default(15 * MINUTE_MS),
        })
        .prefault({}),
    })
    .prefault({}),
  security: z
    .strictObject({
      /**
       * How recent a sign-in proof must be for adding or removing a second factor or a passkey and
       * for changing the email: the sign-in itself, or POST /auth/reauthenticate. A stolen session
       * older than this cannot add a factor of its own.
       */
      reauthenticateWithinMs: z.number().int().positive().default(10 * MINUTE_MS),
      /**
       * How recent a platform administrator's sign-in proof must be for every /admin route: the
       * sign-in itself, or POST /auth/reauthenticate (a password or a second factor).
       */
      adminReauthenticateWithinMs: z.number().int().positive().default(10 * MINUTE_MS),
      /**
       * How long a session a platform administrator opens on an account's behalf lives, counted
       * from its start; it is never refreshed past that (features/admin/impersonation.ts).
       */
      impersonationTtlMs: z.number().int().positive().max(60 * MINUTE_MS).default(15 * MINUTE_MS),
      /**
       * While no account is a platform administrator, each IAM start writes a one-time code to
       * <dataDir>/iam/admin-bootstrap-code (mode 600) that makes the signed-in account that enters it
       * the first administrator (POST /auth/admin-bootstrap, features/admin/bootstrap.ts): the way in
       * beside a running server, which the embedded database's one-process rule keeps the CLI from.
       * false: no code; the CLI's users:grant-admin stays the only way.
       */
      adminBootstrapCode: z.boolean().default(true),
    })
    .prefault({}),
  passkeys: z
    .strictObject({
      /** WebAuthn relying party id: the gateway's host name (a domain, never an IP address) */
      rpID: z.string().min(1).max(253).regex(/^[a-z0-9.-]+$/i, 'a host name, no scheme or port').default('localhost'),
      /** the name authenticators show; absent = email.siteName */
      rpName: z.string().min(1).max(64).optional(),
      /** the origins the browser may report (the gateway's public origins) */
      origins: z.array(z.url()).min(1).default(['http://localhost:3000']),
      /** how long a registration or sign-in challenge lives */
      challengeTtlMs: z.number().int().positive().default(5 * MINUTE_MS),
    })
    .prefault({}),
  oidc: z
    .strictObject({
      /** the OpenID Provider under /oidc (features/oidc) */
      enabled: z.boolean().default(true),
      /**
       * The issuer: the gateway's public origin + `/oidc`, byte for byte what relying parties
       * compare. The gateway forwards /oidc/** to the IAM unchanged, so the path is fixed.
       */
      issuer: z
        .url()
        .refine((v) => /^https?:\/\/[^/?#]+\/oidc$/.test(v), 'the gateway origin followed by /oidc, e.g. https://id.example.com/oidc')
        .default('http://localhost:3000/oidc'),
      /**
       * APIs that accept our JWT access tokens (RFC 8707 resource indicators, RFC 9068 tokens):
       * a client names one with `resource=<indicator>`; any other indicator is `invalid_target`.
       */
      resourceServers: z
        .array(
          z.strictObject({
            indicator: z.url(),
            /** the scopes this API defines, besides the OpenID ones */
            scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/, 'a scope token (RFC 6749 section 3.3)')).default([]),
            /**
             * What each of those scopes lets an app do, in words the consent page shows beside the
             * scope's name: one text, or one per language (`{ "en": "Read your notes", "de": ... }`,
             * the others falling back to `en`). A scope without one is shown by its name alone.
             */
            scopeDescriptions: z
              .record(
                z.string(),
                z.union([SCOPE_DESCRIPTION, z.partialRecord(z.enum(SUPPORTED_LOCALES), SCOPE_DESCRIPTION).refine((texts) => Object.keys(texts).length > 0, 'at least one language')]),
              )
              .optional(),
            accessTokenTtlMs: z.number().int().positive().optional(),
            /**
             * 'jwt' (default): RFC 9068 tokens the API verifies offline; the provider keeps no
             * record of them, so they cannot be revoked or introspected and live until they expire.
             * 'opaque': stored tokens the API checks at the introspection endpoint (RFC 7662) on
             * each request, for an API that must see a revocation (RFC 7009) at once.
             */
            accessTokenFormat: z.enum(['jwt', 'opaque']).default('jwt'),
            /**
             * The ids of the clients this API authenticates as at the introspection endpoint: each
             * may introspect the access tokens issued for this indicator (their `aud`), besides
             * its own tokens. Every other client learns nothing of them (features/oidc/introspection-policy.ts).
             */
            introspectionClients: z.array(z.string().min(1).max(128)).default([]),
          })
          .refine((rs) => Object.keys(rs.scopeDescriptions ?? {}).every((scope) => rs.scopes.includes(scope)), { message: 'scopeDescriptions: describe only scopes listed in `scopes`', path: ['scopeDescriptions'] }),
        )
        .default([]),
      /**
       * Lets the provider's outbound calls (back-channel logout tokens, key sets, metadata
       * documents) reach loopback addresses (127.0.0.0/8, ::1) over http or https, for development
       * and tests whose apps run on this machine. The outbound guard (shared/outbound.ts) refuses
       * every special-use address by default (loopback, private networks, link-local), so that an
       * address a client registered cannot make the IAM call into its own network; with this on,
       * the other special-use addresses stay refused. Refused in production.
       */
      allowLoopbackRequests: z.boolean().default(false),
      /**
       * Token introspection (RFC 7662) of an opaque access token answered in one statement
       * (fast/introspection.ts) where that answer is exactly the provider's; off:
       * every introspection goes through oidc-provider's own endpoint. Both decide who may learn
       * about a token with the same rule (features/oidc/introspection-policy.ts), and
       * tests/gateway/introspection-equivalence.test.ts holds their answers equal.
       */
      fastIntrospection: z.boolean().default(true),
      /**
       * The client credentials grant of a client authenticated with its secret answered in two
       * statements (fast/client-credentials.ts) where that answer is exactly the provider's; off:
       * every grant goes through oidc-provider's token endpoint.
       * tests/gateway/client-credentials-equivalence.test.ts holds their answers equal.
       */
      fastClientCredentials: z.boolean().default(true),
      /**
       * The refresh token grant of a client authenticated with its secret, for a token not due for
       * rotation, answered in two statements (fast/refresh-token.ts) where that answer is exactly
       * the provider's; off: every refresh grant goes through oidc-provider's token endpoint.
       * tests/gateway/refresh-token-equivalence.test.ts holds their answers equal.
       */
      fastRefreshToken: z.boolean().default(true),
      /**
       * Client ID Metadata Documents: a client whose id is an https URL is described by the JSON
       * document at that URL (how MCP clients and agents sign in without registering;
       * features/oidc/client-metadata-documents.ts). `allowedHosts` (empty: any public host) and
       * `blockedHosts` take host names or `*.example.com` patterns.
       */
      clientIdMetadataDocuments: z
        .strictObject({
          enabled: z.boolean().default(true),
          allowedHosts: z.array(HOST_PATTERN).default([]),
          blockedHosts: z.array(HOST_PATTERN).default([]),
        })
        .prefault({}),
      /**
       * Dynamic client registration (RFC 7591) at {issuer}/reg; off: clients come from the admin
       * CLI and Client ID Metadata Documents. `access`: `initialAccessToken` (a registration must
       * carry secrets.oidcRegistrationToken as its Bearer token, RFC 7591 section 3) or `open`
       * (anyone). `management`: RFC 7592, a registered client reads, updates and deletes its
       * registration at its `registration_client_uri` with its registration access token. What
       * a client may register for itself is features/oidc/registration-policy.ts.
       */
      registration: z
        .strictObject({
          enabled: z.boolean().default(false),
          access: z.enum(['initialAccessToken', 'open']).default('initialAccessToken'),
          management: z.boolean().default(true),
        })
        .prefault({}),
      deviceFlow: z
        .strictObject({
          /**
           * Live device codes (unexpired, not yet redeemed) one client may hold: past it the device
           * authorization endpoint answers `slow_down` until some are used or expire. Each code is a
           * stored row and a user code to guess among (RFC 8628 section 5.1).
           */
          maxLiveCodesPerClient: z.number().int().positive().default(100),
        })
        .prefault({}),
      ttl: z
        .strictObject({
          accessTokenMs: z.number().int().positive().default(10 * MINUTE_MS),
          idTokenMs: z.number().int().positive().default(HOUR_MS),
          authorizationCodeMs: z.number().int().positive().default(MINUTE_MS),
          refreshTokenMs: z.number().int().positive().default(14 * DAY_MS),
          clientCredentialsMs: z.number().int().positive().default(10 * MINUTE_MS),
          deviceCodeMs: z.number().int().positive().default(10 * MINUTE_MS),
          sessionMs: z.number().int().positive().default(14 * DAY_MS),
          grantMs: z.number().int().positive().default(14 * DAY_MS),
          interactionMs: z.number().int().positive().default(HOUR_MS),
        })
        .prefault({}),
    })
    .prefault({}),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
})

/** The parsed configuration (every default filled in). */
export type IamConfig = z.infer<typeof configSchema>
