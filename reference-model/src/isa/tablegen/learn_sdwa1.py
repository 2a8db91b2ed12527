from learn import *
import json
F=Field
d=json.load(open('dpp_learn.json'))
for cpu in ('gfx1013','gfx1030'):
    r=learn(cpu, range(256), 2, lambda op:[0x7E000000|op<<9|0xF9,0x00060600],
        [F('vdst',0,17,8,10,14), F('dsrc0',1,0,8,20,24)])
    flips(cpu,r,2,[0xffffffff,0xff])
    d[cpu]['VOP1_SDWA']=r
    print(cpu,len(r))
json.dump(d,open('dpp_learn.json','w'),indent=0)
