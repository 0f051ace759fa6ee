-- facts.lua - a page's numbers held to the grader's (pandoc Lua filter).
--
-- The grader's lab tables are the one source of points, check names and
-- sizes; docs/tools/labfacts.c prints them ("KEY VALUE" lines) into the file
-- the metadata field `facts` names. On a page:
--   [21]{.fact key="lab1.points"}   the text must be the value of the key
--   [global-loads]{.check}          the text must be a check of the page's
--                                   lab (labN.md), or of lab="labN"
-- Both stay plain text in the output. Every disagreement is printed, then
-- pandoc stops with an error, so `make docs` and `make check-docs` fail.
-- Without a `facts` file nothing is checked (the spans are still unwrapped).
-- With a `course_facts` file (the same keys, the instructor's course file applied:
-- docs/instructors.md#course) a page, checked against the kit's numbers, shows the
-- course's: a number the course changed is replaced ("0" where it left the check or
-- the step out), and a check it no longer grades says "(not graded in this course)".

local page = PANDOC_STATE.input_files[1] or '(stdin)'
local page_lab = page:match('(lab%d+)%.md$')

local function read_facts(path)
  local facts, fh = {}, io.open(path, 'r')
  if not fh then error('facts.lua: cannot read ' .. path .. ' (docs/tools/labfacts writes it)') end
  for line in fh:lines() do
    local key, value = line:match('^(%S+) (.*)$')
    if key then facts[key] = value end
  end
  fh:close()
  return facts
end

function Pandoc(doc)
  local path = doc.meta.facts and pandoc.utils.stringify(doc.meta.facts)
  local facts = path and read_facts(path)
  local cpath = doc.meta.course_facts and pandoc.utils.stringify(doc.meta.course_facts)
  local course = cpath and read_facts(cpath)
  -- what the course says in place of the kit's text (nil: the same)
  local function course_text(el, said)
    if not (course and facts) then return nil end
    if el.classes:includes('fact') then
      local key = el.attributes.key or ''
      local want = course[key] or (facts[key] and '0') -- a check or step left out
      if want and want ~= said then return {pandoc.Str(want)} end
    else
      local lab = el.attributes.lab or page_lab or '?'
      if facts[lab .. '.check.' .. said] and not course[lab .. '.check.' .. said] then
        return {pandoc.Str(said), pandoc.Space(), pandoc.Str('(not graded in this course)')}
      end
    end
    return nil
  end
  local problems = {}
  local function check(el)
    local said = pandoc.utils.stringify(el)
    if el.classes:includes('fact') then
      local key = el.attributes.key or ''
      local want = facts[key]
      if want == nil then
        problems[#problems + 1] = string.format('%s: [%s]{.fact key="%s"}: the grader has no such fact',
                                                page, said, key)
      elseif want ~= said then
        problems[#problems + 1] = string.format('%s: says "%s" for %s; the grader says "%s"',
                                                page, said, key, want)
      end
    else
      local lab = el.attributes.lab or page_lab or '?'
      if not facts[lab .. '.check.' .. said] then
        problems[#problems + 1] = string.format('%s: "%s" is not a check of %s', page, said, lab)
      end
    end
  end
  doc = doc:walk{
    Span = function(el)
      if not (el.classes:includes('fact') or el.classes:includes('check')) then return nil end
      if facts then check(el) end
      return course_text(el, pandoc.utils.stringify(el)) or el.content
    end
  }
  if #problems > 0 then
    for _, p in ipairs(problems) do io.stderr:write(p, '\n') end
    error(string.format('%d number(s) or check name(s) on %s differ from the grader\'s lab tables',
                        #problems, page))
  end
  return doc
end
