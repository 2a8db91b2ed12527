from learn import *
import json
F=Field
d=json.load(open('other_learn.json'))
for cpu in ('gfx1013','gfx1030'):
    r=learn(cpu, [113,114], 2, lambda op:[0xE0000000|op<<18],
        [F('offset',0,0,12,4,8), F('vaddr',1,0,8,20,24), F('vdata',1,8,8,10,14), F('srsrc',1,16,5,1,2), F('soffset',1,24,8,3,5)])
    flips(cpu,r,2,[0xfffc0000,0])
    print(cpu, {k:v['text'] for k,v in r.items()})
    for k,v in r.items(): d[cpu]['MUBUF'][str(k)]=v
json.dump(d,open('other_learn.json','w'),indent=0)
