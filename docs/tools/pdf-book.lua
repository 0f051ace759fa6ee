-- pdf-book.lua - the whole course as one document, for the PDF (pandoc Lua filter).
--
-- Run on any page (docs.mk uses docs/index.md) with --metadata-file
-- docs/pages.yaml: it replaces the document with every page of `pages`, in
-- order, each a chapter titled with the page's title. Identifiers get the
-- page's name as a prefix (every lab page has a "What the grader measures"),
-- and links between pages become links inside the book. With the metadata
-- field pdf-figures=false (no rsvg-convert to turn SVG into PDF), figures
-- are replaced by their caption and a pointer to the HTML version.

local stringify = pandoc.utils.stringify

local function srcdir()
  local f = PANDOC_STATE.input_files[1] or ''
  return f:match('^(.*)/[^/]*$') or '.'
end

local function read_page(file)
  local path = srcdir() .. '/' .. file .. '.md'
  local fh = io.open(path, 'r')
  if not fh then error('pages.yaml lists ' .. file .. ', but ' .. path .. ' does not exist') end
  local doc = pandoc.read(fh:read('a'), 'markdown')
  fh:close()
  return doc
end

local function is_relative(target)
  return not target:match('^%a[%w+.-]*:') and not target:match('^//')
end

local function book_target(page, target)
  if not is_relative(target) then return target end
  local path, anchor = target:match('^([^#]*)#?(.*)$')
  if path == '' then return '#' .. page .. '--' .. anchor end
  local other = path:match('^([%w_.-]+)%.html$') or path:match('^([%w_.-]+)%.md$')
  if other then
    return anchor ~= '' and ('#' .. other .. '--' .. anchor) or ('#' .. other)
  end
  return target
end

function Pandoc(doc)
  local pages = doc.meta.pages
  if not pages then error('pdf-book.lua needs the page list: --metadata-file=docs/pages.yaml') end
  local figures = not (doc.meta['pdf-figures'] == false or stringify(doc.meta['pdf-figures'] or '') == 'false')
  local blocks = {}
  for _, p in ipairs(pages) do
    local page = stringify(p.file)
    local d = read_page(page)
    local function prefix(el)
      if el.identifier and el.identifier ~= '' then
        el.identifier = page .. '--' .. el.identifier
        return el
      end
    end
    d = d:walk{
      Header = prefix, Div = prefix, Span = prefix, CodeBlock = prefix, Table = prefix,
      Link = function(el) el.target = book_target(page, el.target); return el end,
      Image = function(el)
        if figures then return nil end
        local words = pandoc.List{pandoc.Str('[Figure:'), pandoc.Space()}
        words:extend(el.caption)
        words:extend{pandoc.Str(' (see the HTML version: build/docs/' .. page .. '.html)]')}
        return pandoc.Emph(words)
      end,
      CodeBlock = function(el)
        if el.classes:includes('cuda') then el.classes:insert(1, 'cpp') end
        return el
      end,
    }
    local title = d.meta.title and stringify(d.meta.title) or page
    table.insert(blocks, pandoc.Header(1, {pandoc.Str(title)}, pandoc.Attr(page)))
    if d.meta.subtitle then
      table.insert(blocks, pandoc.Para{pandoc.Emph{pandoc.Str(stringify(d.meta.subtitle))}})
    end
    for _, b in ipairs(d.blocks) do table.insert(blocks, b) end
  end
  doc.blocks = blocks
  doc.meta.pages = nil
  return doc
end
