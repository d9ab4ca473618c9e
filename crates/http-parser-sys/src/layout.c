/* Layout probe: lets the Rust binding check its view of `struct http_parser` (which starts and
 * ends with bitfields) against the C compiler's. */
#include <stddef.h>
#include "http_parser.h"

size_t barrage_http_parser_size(void) { return sizeof(http_parser); }
size_t barrage_http_parser_data_offset(void) { return offsetof(http_parser, data); }

/* Writes the read-only bitfields through the compiler, so a test can find them where the binding
 * reads them. */
void barrage_http_parser_set_fields(http_parser *p, unsigned method, unsigned err) {
  p->method = method;
  p->http_errno = err;
}
