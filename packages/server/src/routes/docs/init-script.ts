// /docs/init.js: starts Swagger UI on /v1/openapi.json.
// Integers beyond 2^53 must show with every digit. Swagger UI's resolver cannot hold a BigInt,
// so it gets the document as JSON.parse gives it; once resolved, each rounded integer is put
// back as the exact BigInt the document holds (exact.js). JSON.parse on this page keeps
// an integer it would round as a BigInt, and JSON.stringify writes a BigInt as its digits, so
// the examples and "Try it out" responses show every digit.
export const INIT_SCRIPT = `(function () {
  var nativeParse = JSON.parse
  function exactReviver(key, value, context) {
    var rounded = typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)
    if (rounded && context && /^-?[0-9]+$/.test(context.source)) {
      var exact = BigInt(context.source)
      return exact === BigInt(value) ? value : exact
    }
    return value
  }
  JSON.parse = function (text, reviver) {
    var exact = reviver === undefined && typeof text === 'string' && /[0-9]{16}/.test(text)
    return exact ? nativeParse(text, exactReviver) : nativeParse(text, reviver)
  }
  BigInt.prototype.toJSON = function () { return JSON.rawJSON(this.toString()) }

  var exactByRounded = new Map()
  function collect(value) {
    if (typeof value === 'bigint') {
      var rounded = Number(value)
      exactByRounded.set(rounded, exactByRounded.has(rounded) && exactByRounded.get(rounded) !== value ? null : value)
    } else if (value !== null && typeof value === 'object') {
      for (var key in value) collect(value[key])
    }
  }
  function rounded(value) {
    if (typeof value === 'bigint') return Number(value)
    if (value === null || typeof value !== 'object') return value
    var out = Array.isArray(value) ? [] : {}
    for (var key in value) out[key] = rounded(value[key])
    return out
  }
  function exact(value) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && exactByRounded.get(value)) return exactByRounded.get(value)
    if (value === null || typeof value !== 'object') return value
    if (typeof value.toJS === 'function') return exact(value.toJS())
    var out = Array.isArray(value) ? [] : {}
    for (var key in value) out[key] = exact(value[key])
    return out
  }
  function ExactInt64Plugin() {
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            updateResolvedSubtree: function (original) { return function (path, value) { return original(path, exact(value)) } },
            updateResolved: function (original) { return function (value) { return original(exact(value)) } }
          }
        }
      }
    }
  }

  window.addEventListener('load', function () {
    fetch('/v1/openapi.json').then(function (response) { return response.text() }).then(function (text) {
      var doc = JSON.parse(text)
      collect(doc)
      window.ui = SwaggerUIBundle({
        spec: rounded(doc), dom_id: '#swagger-ui', deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false,
        plugins: [ExactInt64Plugin]
      })
    })
  })
})()
`
