-- check-links.lua - fail the build on a broken internal link (pandoc Lua filter).
--
-- For the page being converted it collects every identifier (headings with
-- their automatic ids, divs, spans, code, images, tables, and id="..." in raw
-- HTML) and checks every link and image:
--   #anchor              an id on this page
--   page.html#anchor     docs/page.md must exist and have that id
--   page.md#anchor       (the same; nav.lua rewrites these to .html)
--   figures/x.svg, ...   any other relative path: the file must exist,
--                        relative to the output file's folder (where the
--                        browser will look for it), images included
-- Links with a scheme (https:, mailto:) are not checked. Every problem is
-- printed, then pandoc stops with an error, so `make docs` fails.
--
-- The base folder for files is the output file's folder, or the metadata
-- field `linkcheck-base` when given.

local problems = {}
local page_path = PANDOC_STATE.input_files[1] or '(stdin)'

local function srcdir()
  return page_path:match('^(.*)/[^/]*$') or '.'
end

local function exists(path)
  local fh = io.open(path, 'r')
  if fh then fh:close() return true end
  return false
end

-- Every id in a document (an AST), as a set.
local function ids_of(doc)
  local ids = {}
  local function add(id) if id and id ~= '' then ids[id] = true end end
  local function attr(el) add(el.identifier) end
  local function raw(el)
    if el.format == 'html' then
      for id in el.text:gmatch('%sid%s*=%s*"([^"]+)"') do add(id) end
      for id in el.text:gmatch("%sid%s*=%s*'([^']+)'") do add(id) end
    end
  end
  doc:walk{
    Header = attr, Div = attr, Span = attr, Code = attr, CodeBlock = attr,
    Image = attr, Link = attr, Table = attr,
    RawBlock = raw, RawInline = raw,
  }
  return ids
end

-- Ids of another page of the docs, read from its markdown source.
local page_ids = {}
local function ids_of_page(page)
  if page_ids[page] == nil then
    local path = srcdir() .. '/' .. page .. '.md'
    local fh = io.open(path, 'r')
    if not fh then
      page_ids[page] = false
    else
      local text = fh:read('a')
      fh:close()
      page_ids[page] = ids_of(pandoc.read(text, 'markdown'))
    end
  end
  return page_ids[page]
end

local function is_relative(target)
  return not target:match('^%a[%w+.-]*:') and not target:match('^//')
end

local function report(kind, target, why)
  table.insert(problems, string.format('%s: broken %s "%s": %s', page_path, kind, target, why))
end

local function check(kind, target, own_ids, base)
  if target == '' then
    report(kind, target, 'empty target')
    return
  end
  if not is_relative(target) then return end
  local path, anchor = target:match('^([^#]*)#?(.*)$')
  path = path:gsub('%?.*$', '')
  if path == '' then
    if not own_ids[anchor] then
      report(kind, target, 'no id "' .. anchor .. '" on this page')
    end
    return
  end
  local page = path:match('^([%w_.-]+)%.html$') or path:match('^([%w_.-]+)%.md$')
  if page then
    local ids = ids_of_page(page)
    if not ids then
      report(kind, target, 'no page ' .. srcdir() .. '/' .. page .. '.md')
    elseif anchor ~= '' and not ids[anchor] then
      report(kind, target, 'no id "' .. anchor .. '" in ' .. srcdir() .. '/' .. page .. '.md')
    end
    return
  end
  if anchor ~= '' then
    report(kind, target, 'an anchor into a file that is not a page of the docs')
    return
  end
  local file = base .. '/' .. path
  if not exists(file) then
    report(kind, target, 'no file ' .. file)
  end
end

function Pandoc(doc)
  local own_ids = ids_of(doc)
  local base = doc.meta['linkcheck-base'] and pandoc.utils.stringify(doc.meta['linkcheck-base'])
  if not base then
    local out = PANDOC_STATE.output_file
    base = (out and out ~= '-' and out:match('^(.*)/[^/]*$')) or '.'
  end
  doc:walk{
    Link = function(el) check('link', el.target, own_ids, base) end,
    Image = function(el) check('image', el.src, own_ids, base) end,
  }
  if #problems > 0 then
    for _, p in ipairs(problems) do io.stderr:write(p, '\n') end
    io.stderr:write(string.format("check-links: %d broken link(s) in %s\n", #problems, page_path))
    os.exit(1)
  end
  return nil
end
